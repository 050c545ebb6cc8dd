import type { AnswerOf, listStateDeclarations } from '@hookyard/api';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Hook, type Run, type RunPage } from '../api';
import { JqEditor } from '../jq-editor';
import { RulesEditor } from './rules-editor';
import { go } from '../route';
import { isExpression, loadHookSchema, type Schema } from '../schema';
import { ErrorBox, Json, toApiError, useLoad } from '../util';

/** Fields the server sets (echoed on GET, ignored on input): not part of the form. */
const SERVER_FIELDS = new Set(['created_at', 'updated_at', 'declaration_version']);

/** A declared state as GET /api/states/declarations lists it (what the subject fields offer). */
type DeclaredState = AnswerOf<typeof listStateDeclarations>['declarations'][number];

type Kind = 'expression' | 'json' | 'rules' | 'list' | 'enum' | 'tool' | 'text';

interface Field {
  /** The form's name: the record's field, or `parent.child` for a field of an object (subject.key_expr). */
  name: string;
  schema: Schema;
  kind: Kind;
  required: boolean;
  /** Set for a field of an object field: the record's field it belongs to, and its key there. */
  parent?: string;
  key?: string;
  /** For `rules`: the schema of one item. */
  item?: Schema;
}

function kindOf(name: string, raw: Schema, s: Schema, resolve: (s: Schema) => Schema): Kind {
  if (isExpression(raw) || isExpression(s)) return 'expression';
  if (name === 'tool') return 'tool';
  if (s.enum) return 'enum';
  if (s.type === 'array' && resolve(s.items ?? {}).type === 'string') return 'list';
  if (s.type === 'object' || s.type === 'array' || s.type === undefined) return 'json';
  return 'text';
}

function fieldsOf(root: Schema, resolve: (s: Schema) => Schema): Field[] {
  const required = new Set(root.required ?? []);
  return Object.entries(root.properties ?? {})
    .filter(([name]) => !SERVER_FIELDS.has(name))
    .flatMap(([name, raw]): Field[] => {
      const s = resolve(raw);
      const props = Object.entries(s.properties ?? {});
      // An object holding a jq field (subject {scope, kind, key_expr}) is one input per property, so its jq gets the editor.
      if (s.type === 'object' && props.some(([, p]) => isExpression(p) || isExpression(resolve(p)))) {
        return props
          .filter(([key]) => !SERVER_FIELDS.has(key))
          .map(([key, praw]) => {
            const ps = resolve(praw);
            // Required inside the object only once the object is given: the server names what is missing.
            return {
              name: `${name}.${key}`,
              schema: { ...ps, description: praw.description ?? ps.description },
              kind: kindOf(key, praw, ps, resolve),
              required: false,
              parent: name,
              key,
            };
          });
      }
      // An array of objects holding a jq field (approval rules with `when`): one group of inputs per item.
      const item = s.type === 'array' ? resolve(s.items ?? {}) : undefined;
      if (item?.type === 'object' && Object.values(item.properties ?? {}).some((p) => isExpression(p) || isExpression(resolve(p)))) {
        return [{ name, schema: { ...s, description: raw.description ?? s.description }, kind: 'rules', required: required.has(name), item }];
      }
      return [{ name, schema: { ...s, description: raw.description ?? s.description }, kind: kindOf(name, raw, s, resolve), required: required.has(name) }];
    });
}

/** The value of a field in a hook record (a field of an object field is read inside it). */
function valueOf(f: Field, hook: Hook | null | undefined): unknown {
  if (!hook) return undefined;
  // Fields come from the hook's JSON Schema by name.
  const record: Record<string, unknown> = hook;
  if (!f.parent) return record[f.name];
  const obj = record[f.parent] as Record<string, unknown> | undefined;
  return obj && typeof obj === 'object' ? obj[f.key!] : undefined;
}

/** Form text for a hook's field value. */
function toText(f: Field, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (f.kind === 'expression') {
    const e = v as { content?: unknown };
    return typeof e.content === 'string' && Object.keys(e).length === 1 ? e.content : JSON.stringify(v);
  }
  if (f.kind === 'list') return (v as string[]).join(', ');
  if (f.kind === 'json' || f.kind === 'rules') return JSON.stringify(v, null, 2);
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The hook record the form describes; every field it cannot read is one error line. */
function toRecord(fields: Field[], values: Record<string, string>): { record: Record<string, unknown>; errors: string[] } {
  const record: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const f of fields) {
    const text = (values[f.name] ?? '').trim();
    if (!text) continue;
    // A field of an object field lands inside it (created by its first set field; an object with none set is left out).
    const into = f.parent ? ((record[f.parent] as Record<string, unknown> | undefined) ?? (record[f.parent] = {})) : record;
    const key = f.key ?? f.name;
    if (f.kind === 'expression') {
      // A stored template reference is edited as its JSON; anything else is inline jq.
      if (text.startsWith('{"id"')) {
        try {
          into[key] = JSON.parse(text);
        } catch {
          errors.push(`${f.name}: not valid JSON`);
        }
      } else into[key] = { content: text };
    } else if (f.kind === 'list')
      into[key] = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (f.kind === 'json' || f.kind === 'rules') {
      try {
        into[key] = JSON.parse(text);
      } catch (err) {
        errors.push(`${f.name}: not valid JSON (${(err as Error).message})`);
      }
    } else into[key] = text;
  }
  return { record, errors };
}

/**
 * Register or edit a hook through a form generated from the hook schema:
 * every jq field gets the jq editor, and (where the server has
 * `POST /api/hooks/dry-run`) a live dry run over a sample payload shows the
 * condition, the tool's arguments and the approval decision as you type.
 */
export function HookEditor({ name }: { name: string | null }) {
  const schema = useLoad(loadHookSchema, []);
  const tools = useLoad(() => api<{ tools: Array<{ name: string }> }>('GET', '/api/tools'), []);
  const existing = useLoad(() => (name ? api<Hook>('GET', `/api/hooks/${encodeURIComponent(name)}`) : Promise.resolve(null)), [name]);
  // Declared states (an older server has none: the subject fields are then plain text).
  const declared = useLoad(
    () =>
      api<{ declarations: DeclaredState[] }>('GET', '/api/states/declarations').then(
        (r) => r.declarations,
        () => [] as DeclaredState[],
      ),
    [],
  );
  const fields = useMemo(() => (schema.data ? fieldsOf(schema.data.root, schema.data.resolve) : []), [schema.data]);
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  // The server's lines about the form (dry run or registration), shown under the field they name.
  const [serverLines, setServerLines] = useState<string[]>([]);

  useEffect(() => {
    if (!schema.data || existing.loading || values) return;
    const v: Record<string, string> = {};
    for (const f of fields) v[f.name] = toText(f, valueOf(f, existing.data));
    setValues(v);
  }, [schema.data, existing.loading, fields]);

  if (schema.error || existing.error) return <ErrorBox error={schema.error ?? existing.error} />;
  if (!values) return <p class="loading">Loading the hook schema…</p>;
  // From the latest values, not this render's: two changes before the next render must both be kept.
  const set = (field: string, text: string) => setValues((prev) => ({ ...prev, [field]: text }));
  const { record, errors } = toRecord(fields, values);

  const save = async (e: Event) => {
    e.preventDefault();
    if (errors.length) return setError(new ApiError(400, 'bad_input', 'the form has fields that do not parse', errors));
    setSaving(true);
    setError(null);
    try {
      await api('POST', '/api/hooks', record);
      go('/hooks');
    } catch (err) {
      const e = toApiError(err);
      setError(e);
      setServerLines(e.details);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby="editor-title">
      <h1 id="editor-title">{name ? `Edit hook ${name}` : 'Register a hook'}</h1>
      <div class="editor">
        <form onSubmit={(e) => void save(e)} class="hook-form" aria-label="Hook">
          {fields.map((f) => {
            const id = `field-${f.name}`;
            const help = f.schema.description ? `${id}-help` : undefined;
            const common = { id, name: f.name, 'aria-describedby': help, required: f.required };
            let input;
            if (f.kind === 'expression')
              input = (
                <JqEditor
                  id={id}
                  label={f.name}
                  value={values[f.name] ?? ''}
                  onChange={(t) => set(f.name, t)}
                  describedBy={help}
                  errors={serverLines.filter((l) => l.startsWith(`${f.name} `) || l.startsWith(`${f.name}.`))}
                />
              );
            else if (f.kind === 'tool')
              input = (
                <select {...common} value={values[f.name]} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
                  <option value="">choose a tool</option>
                  {(tools.data?.tools ?? []).map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.name}
                    </option>
                  ))}
                </select>
              );
            else if (f.kind === 'enum')
              input = (
                <select {...common} value={values[f.name]} onChange={(e) => set(f.name, (e.target as HTMLSelectElement).value)}>
                  <option value="" />
                  {f.schema.enum!.map((o) => (
                    <option key={String(o)} value={String(o)}>
                      {String(o)}
                    </option>
                  ))}
                </select>
              );
            else if (f.kind === 'rules')
              input = (
                <RulesEditor
                  id={id}
                  name={f.name}
                  value={values[f.name] ?? ''}
                  onChange={(t) => set(f.name, t)}
                  item={f.item!}
                  resolve={schema.data!.resolve}
                  lines={serverLines.filter((l) => l.startsWith(`${f.name}[`))}
                />
              );
            else if (f.kind === 'json')
              input = (
                <textarea
                  {...common}
                  rows={3}
                  spellcheck={false}
                  value={values[f.name]}
                  onInput={(e) => set(f.name, (e.target as HTMLTextAreaElement).value)}
                />
              );
            else
              input = (
                <input
                  {...common}
                  type="text"
                  pattern={f.schema.pattern?.replace(/^\^|\$$/g, '').replace(/([^\\])-\]/g, '$1\\-]')}
                  readOnly={f.name === 'name' && name !== null}
                  value={values[f.name]}
                  onInput={(e) => set(f.name, (e.target as HTMLInputElement).value)}
                />
              );
            return (
              <div class="field" key={f.name}>
                <label for={id}>
                  {f.name}
                  {f.required && <span aria-hidden="true"> *</span>}
                  {f.kind === 'expression' && <span class="tag">jq</span>}
                </label>
                {input}
                {help && (
                  <small id={help} class="hint">
                    {f.schema.description}
                  </small>
                )}
                {f.name === 'subject.kind' && (
                  <DeclaredHint
                    states={declared.data ?? []}
                    scope={values['subject.scope'] ?? ''}
                    kind={values['subject.kind'] ?? ''}
                    pick={(d) => {
                      set('subject.scope', d.scope);
                      set('subject.kind', d.kind);
                    }}
                  />
                )}
              </div>
            );
          })}
          <ErrorBox error={error} />
          <button type="submit" disabled={saving}>
            {name ? 'Save' : 'Register'}
          </button>
        </form>
        <DryRun record={record} formErrors={errors} onLines={setServerLines} />
      </div>
    </section>
  );
}

/**
 * The declared states offered for the subject (picking one fills scope and
 * kind), and what the chosen scope and kind are: a declared state with its
 * description and templates, or not declared.
 */
function DeclaredHint({ states, scope, kind, pick }: { states: DeclaredState[]; scope: string; kind: string; pick: (d: DeclaredState) => void }) {
  const d = states.find((x) => x.scope === scope.trim() && x.kind === kind.trim());
  return (
    <>
      {states.length > 0 && (
        <select
          aria-label="declared state"
          value={d ? `${d.scope}/${d.kind}` : ''}
          onChange={(e) => {
            const chosen = states.find((x) => `${x.scope}/${x.kind}` === (e.target as HTMLSelectElement).value);
            if (chosen) pick(chosen);
          }}
        >
          <option value="">declared states…</option>
          {states.map((x) => (
            <option key={`${x.scope}/${x.kind}`} value={`${x.scope}/${x.kind}`}>
              {`${x.scope}/${x.kind}`}
            </option>
          ))}
        </select>
      )}
      {scope.trim() && kind.trim() && (
        <small class="hint" data-testid="declared-state" aria-live="polite">
          {d
            ? `Declared state ${d.scope}/${d.kind}: ${d.description}. Templates to attach (subject.templates): ${Object.keys(d.templates).join(', ') || 'none'}.`
            : `${scope.trim()}/${kind.trim()} is not a declared state: registering this hook is refused (404); declare it first (hookyard states declare ${scope.trim()} ${kind.trim()}).`}
        </small>
      )}
    </>
  );
}

/** The live dry run: the form's record over a sample payload, asked again a moment after each change. */
function DryRun({ record, formErrors, onLines }: { record: Record<string, unknown>; formErrors: string[]; onLines: (lines: string[]) => void }) {
  const [payload, setPayload] = useState('{}');
  const [answer, setAnswer] = useState<{ result?: unknown; error?: ApiError; unavailable?: boolean }>({});
  const [sampleNote, setSampleNote] = useState('');
  const key = JSON.stringify(record) + '\u0000' + payload;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    clearTimeout(timer.current);
    if (answer.unavailable) return;
    if (formErrors.length || !record.name || !record.topic || !record.tool) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      setAnswer({ error: new ApiError(400, 'bad_input', 'the sample payload is not valid JSON') });
      return;
    }
    let live = true;
    timer.current = setTimeout(() => {
      api('POST', '/api/hooks/dry-run', { hook: record, payload: parsed }).then(
        (result) => {
          if (!live) return;
          setAnswer({ result });
          onLines([]);
        },
        (err) => {
          if (!live) return;
          const e = toApiError(err);
          onLines(e.details);
          setAnswer(e.status === 404 && e.message.startsWith('no route') ? { unavailable: true } : { error: e });
        },
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer.current);
    };
  }, [key]);

  const fromRecent = async () => {
    const topic = record.topic as string | undefined;
    if (!topic) return setSampleNote('Set a topic first.');
    try {
      const page = await api<RunPage>('GET', `/api/hook-runs?topic=${encodeURIComponent(topic)}&limit=1`);
      const run: Run | undefined = page.runs[0];
      if (!run) return setSampleNote(`No kept run on ${topic} yet.`);
      setPayload(JSON.stringify(run.payload, null, 2));
      setSampleNote(`Payload of run ${run.id}.`);
    } catch (err) {
      setSampleNote(toApiError(err).message);
    }
  };

  const r = answer.result as
    | {
        outcome?: string;
        condition?: { matched?: boolean } | null;
        kwargs?: unknown;
        approval?: unknown;
        error?: { step: string; kind: string; message: string } | null;
      }
    | undefined;
  return (
    <aside class="dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <label for="sample-payload">Sample payload (JSON)</label>
      <textarea id="sample-payload" rows={6} spellcheck={false} value={payload} onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)} />
      <button type="button" onClick={() => void fromRecent()}>
        Take from a recent run of the topic
      </button>
      <span aria-live="polite">{sampleNote}</span>
      <div aria-live="polite" data-testid="dry-run-answer">
        {answer.unavailable && <p class="hint">This server has no dry run (POST /api/hooks/dry-run); the hook is checked when you register it.</p>}
        <ErrorBox error={answer.error} />
        {r && (
          <>
            <p>
              Outcome: <strong data-testid="dry-run-outcome">{r.outcome}</strong>
              {r.condition && <> · condition {r.condition.matched ? 'matched' : 'did not match'}</>}
            </p>
            {r.error && (
              <p class="error">
                {r.error.step}: <strong>{r.error.kind}</strong> {r.error.message}
              </p>
            )}
            <h3>Tool arguments</h3>
            <Json value={r.kwargs ?? undefined} label="Tool arguments" />
            <h3>Approval</h3>
            <Json value={r.approval ?? undefined} label="Approval decision" />
          </>
        )}
      </div>
    </aside>
  );
}
