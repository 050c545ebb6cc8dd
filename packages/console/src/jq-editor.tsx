import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Annotation, EditorState, StateEffect, StateField } from '@codemirror/state';
import { Decoration, EditorView, keymap, placeholder, type DecorationSet } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { jqErrorRange } from './jq-diagnostic';
import { jq } from './jq-language';

/** The column a compile error names, underlined (replaced whenever the server's lines change; follows edits until then). */
const setUnderline = StateEffect.define<{ from: number; to: number; title: string } | null>();
const underline = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setUnderline)) continue;
      const r = e.value;
      marks = r ? Decoration.set([Decoration.mark({ class: 'jq-error-mark', attributes: { title: r.title } }).range(r.from, r.to)]) : Decoration.none;
    }
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Marks the change that puts a value set from outside into the editor: it is not typing, so it is not reported back. */
const fromOutside = Annotation.define<boolean>();

/**
 * A jq expression field: CodeMirror 6 with jq highlighting, labelled by the
 * form's field name (the editable element carries the id and an aria-label),
 * Tab moves on to the next field (no Tab-to-indent, so the keyboard order
 * holds), and the server's compile errors for the field shown under it.
 */
export function JqEditor({
  id,
  label,
  value,
  onChange,
  describedBy,
  errors = [],
}: {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  describedBy?: string;
  errors?: string[];
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  // The texts reported by typing that the `value` prop has not caught up with yet, oldest first.
  const reported = useRef<string[]>([]);
  const errorId = `${id}-errors`;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          keymap.of([...defaultKeymap.filter((k) => k.key !== 'Tab'), ...historyKeymap]),
          jq,
          underline,
          syntaxHighlighting(defaultHighlightStyle),
          EditorView.lineWrapping,
          EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''),
          placeholder(`jq, e.g. .action == "opened"`),
          EditorView.contentAttributes.of({
            id,
            role: 'textbox',
            'aria-multiline': 'true',
            'aria-label': label,
            ...(describedBy ? { 'aria-describedby': `${describedBy} ${errorId}` } : { 'aria-describedby': errorId }),
            'data-field': label,
          }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged || u.transactions.some((t) => t.annotation(fromOutside))) return;
            const text = u.state.doc.toString();
            reported.current.push(text);
            changed.current(text);
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
  }, []);

  // The first compile error that names a column is underlined there.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const text = v.state.doc.toString();
    let found: { from: number; to: number; title: string } | null = null;
    for (const e of errors) {
      const r = jqErrorRange(text, e);
      if (r) {
        found = { ...r, title: e };
        break;
      }
    }
    v.dispatch({ effects: setUnderline.of(found) });
  }, [errors.join('\n')]);

  // A value set from outside (a loaded hook) replaces the text; typing does not loop back. Keystrokes can arrive
  // faster than the form renders, so the prop may still hold an earlier text this editor reported (or this effect
  // may run for a render that newer typing has passed): such a value is the form catching up, not a value from
  // outside, and writing it back would undo the newer keystrokes, whose report would re-render the old value again,
  // and so on without end. Only a value the editor never reported replaces its text, and that change is not reported.
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const seen = reported.current.lastIndexOf(value);
    if (seen >= 0) {
      reported.current.splice(0, seen + 1);
      return;
    }
    reported.current = [];
    if (v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value }, annotations: fromOutside.of(true) });
  }, [value]);

  return (
    <div class="jq-field">
      <div ref={host} class="jq-host" />
      <div id={errorId} class="jq-error" aria-live="polite" data-testid={`jq-error-${label}`}>
        {errors.map((e) => (
          <div key={e}>{e}</div>
        ))}
      </div>
    </div>
  );
}
