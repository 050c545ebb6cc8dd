/** A jq expression field. */
export function JqEditor({ id, label, value, onChange, describedBy }: { id: string; label: string; value: string; onChange: (text: string) => void; describedBy?: string }) {
  return (
    <textarea
      id={id}
      name={label}
      class="jq"
      rows={2}
      spellcheck={false}
      aria-describedby={describedBy}
      value={value}
      onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
    />
  );
}
