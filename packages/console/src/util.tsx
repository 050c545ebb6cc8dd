import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { relativeTime, time } from './times';

export { relativeTime, time };

/** Loads once per `deps` change; `reload` asks again. Errors are kept to be shown, never thrown. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: ApiError | undefined; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (err) => live && setState({ error: toApiError(err), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: () => setTick((t) => t + 1) };
}

export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'internal', (err as Error)?.message ?? String(err));
}

export function ErrorBox({ error }: { error: ApiError | undefined | null }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <strong>{error.kind}</strong>: {error.message}
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status}</span>;
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/**
 * The one way the runs list and a run's story show a time: a <time> whose
 * text is the absolute time with its zone, or (`relative`) how long ago it
 * was, with the absolute time and zone in its title either way.
 */
export function When({ iso, relative = false, now }: { iso: string | null | undefined; relative?: boolean; now?: number }) {
  if (!iso) return <span class="when">—</span>;
  const absolute = time(iso);
  return (
    <time class="when" dateTime={iso} title={absolute}>
      {relative ? relativeTime(iso, now) : absolute}
    </time>
  );
}

/**
 * A confirmation in a native modal <dialog> (focus is trapped and Escape
 * cancels): `ask` opens it; the promise says what the operator chose.
 */
export function useConfirm(): [(message: ComponentChildren, confirmLabel: string) => Promise<boolean>, ComponentChildren] {
  const ref = useRef<HTMLDialogElement>(null);
  const [state, setState] = useState<{ message: ComponentChildren; label: string; resolve: (ok: boolean) => void } | null>(null);
  useEffect(() => {
    if (state && ref.current && !ref.current.open) ref.current.showModal();
  }, [state]);
  const close = (ok: boolean) => {
    ref.current?.close();
    state?.resolve(ok);
    setState(null);
  };
  const ask = (message: ComponentChildren, label: string) => new Promise<boolean>((resolve) => setState({ message, label, resolve }));
  const dialog = (
    <dialog ref={ref} aria-labelledby="confirm-message" onCancel={() => close(false)}>
      <p id="confirm-message">{state?.message}</p>
      <div class="actions">
        <button type="button" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => close(true)}>
          {state?.label}
        </button>
      </div>
    </dialog>
  );
  return [ask, dialog];
}

/**
 * The pager of a listing read by cursor: Newest (`newest`, given once past the
 * first page) and Newer (back in the browser's history), then Older (`older`,
 * given while there is a next page).
 */
export function Pager({ newest, older }: { newest: string | null; older: string | null }) {
  return (
    <nav class="pager" aria-label="Pages">
      {newest && (
        <a href={newest} class="button">
          Newest
        </a>
      )}
      {newest && (
        <button type="button" onClick={() => history.back()}>
          Newer
        </button>
      )}
      {older && (
        <a class="button" href={older}>
          Older
        </a>
      )}
    </nav>
  );
}

/**
 * A filter form's select: "any" first, then `options`; with `keep`, a `value`
 * not among them (a name in the hash the list does not hold) stays choosable.
 */
export function FilterSelect({
  label,
  name,
  value,
  options,
  keep = false,
}: {
  label: string;
  name: string;
  value: string;
  options: readonly string[];
  keep?: boolean;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
        {keep && value && !options.includes(value) && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}

/** The text fields of a submitted form: `field(name)` is its value, '' when it has none. */
export function formFields(el: HTMLFormElement): (name: string) => string {
  const form = new FormData(el);
  return (name) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
}
