import { JqEditor } from '../jq-editor';
import { isExpression, type Schema } from '../schema';

type Item = Record<string, unknown>;

/** The array the field's JSON text holds, or null when it is not an array of objects (then the raw text is edited). */
function parse(text: string): Item[] | null {
  if (!text.trim()) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)) ? (v as Item[]) : null;
  } catch {
    return null;
  }
}

/**
 * An array of objects one of whose properties is jq (the hook's `approval`
 * rules, with `when`): one group of inputs per item, generated from the item
 * schema, the jq property in the jq editor with the server's lines for it
 * (`approval[0].when does not compile: ...`) under it; add and remove items.
 * The field's value stays the JSON text of the array, so the form reads it as
 * before; a text that is not such an array is shown as it is to be fixed.
 */
export function RulesEditor({
  id,
  name,
  value,
  onChange,
  item,
  resolve,
  lines,
}: {
  id: string;
  name: string;
  value: string;
  onChange: (text: string) => void;
  item: Schema;
  resolve: (s: Schema) => Schema;
  lines: string[];
}) {
  const items = parse(value);
  if (items === null) {
    return <textarea id={id} name={name} rows={4} spellcheck={false} value={value} onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)} />;
  }
  const write = (next: Item[]) => onChange(next.length ? JSON.stringify(next, null, 2) : '');
  const setProp = (i: number, key: string, v: unknown) => {
    const next = items.map((x) => ({ ...x }));
    if (v === undefined || v === '') delete next[i][key];
    else next[i][key] = v;
    write(next);
  };
  const required = new Set(item.required ?? []);
  const props = Object.entries(item.properties ?? {});
  return (
    <div class="rules" id={id}>
      {items.map((it, i) => (
        <fieldset key={i} class="rule">
          <legend>
            {name}[{i}]
          </legend>
          {props.map(([key, raw]) => {
            const s = resolve(raw);
            const fid = `${id}-${i}-${key}`;
            const label = `${name}[${i}].${key}`;
            const v = it[key];
            let input;
            if (isExpression(raw) || isExpression(s)) {
              input = (
                <JqEditor
                  id={fid}
                  label={label}
                  value={typeof v === 'string' ? v : ''}
                  onChange={(t) => setProp(i, key, t.trim() ? t : undefined)}
                  errors={lines.filter((l) => l.startsWith(`${label} `))}
                />
              );
            } else if (s.enum) {
              input = (
                <select
                  id={fid}
                  value={v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v)}
                  onChange={(e) => setProp(i, key, (e.target as HTMLSelectElement).value || undefined)}
                >
                  <option value="" />
                  {s.enum.map((o) => (
                    <option key={String(o)} value={String(o)}>
                      {String(o)}
                    </option>
                  ))}
                </select>
              );
            } else if (s.type === 'array') {
              input = (
                <input
                  id={fid}
                  type="text"
                  value={Array.isArray(v) ? v.join(', ') : ''}
                  onInput={(e) => {
                    const list = (e.target as HTMLInputElement).value
                      .split(',')
                      .map((x) => x.trim())
                      .filter(Boolean);
                    setProp(i, key, list.length ? list : undefined);
                  }}
                />
              );
            } else if (s.type === 'integer' || s.type === 'number') {
              input = (
                <input
                  id={fid}
                  type="number"
                  value={typeof v === 'number' ? String(v) : ''}
                  onInput={(e) => {
                    const t = (e.target as HTMLInputElement).value;
                    setProp(i, key, t === '' ? undefined : Number(t));
                  }}
                />
              );
            } else {
              input = (
                <input id={fid} type="text" value={typeof v === 'string' ? v : ''} onInput={(e) => setProp(i, key, (e.target as HTMLInputElement).value)} />
              );
            }
            return (
              <div class="field" key={key}>
                <label for={fid}>
                  {key}
                  {required.has(key) && <span aria-hidden="true"> *</span>}
                  {(isExpression(raw) || isExpression(s)) && <span class="tag">jq</span>}
                </label>
                {input}
                {(raw.description ?? s.description) && <small class="hint">{raw.description ?? s.description}</small>}
                {!(isExpression(raw) || isExpression(s)) &&
                  lines
                    .filter((l) => l.startsWith(`${label} `) || l.startsWith(`${label}[`))
                    .map((l) => (
                      <div key={l} class="jq-error">
                        {l}
                      </div>
                    ))}
              </div>
            );
          })}
          <button type="button" class="danger" onClick={() => write(items.filter((_, j) => j !== i))}>
            Remove {name}[{i}]
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => write([...items, {}])}>
        Add a rule to {name}
      </button>
    </div>
  );
}
