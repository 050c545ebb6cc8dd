import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { jq } from './jq-language';

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
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
  }, []);

  // A value set from outside (a loaded hook) replaces the text; typing does not loop back.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
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
