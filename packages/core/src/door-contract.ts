import { badInput } from './errors';
import { assignOwn } from './own';

/** At most this many open interactions are bound as `$parked` (oldest first). */
export const PARKED_MAX = 100;

/** What a run's door contract does to open interactions: one kind of act per run. */
export type DoorAct = { verb: 'cancel'; ids: string[] } | { verb: 'resume'; items: Array<{ id: string; payload: unknown }> } | { verb: 'take'; id: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a jq expression yielded, for an error message: its first output. */
export const shownOutput = (out: unknown[]): string => (out.length === 0 ? 'no output' : JSON.stringify(out[0]));
/** Every output, for a field that must yield exactly one (at most 5 shown). */
export const shownOutputs = (out: unknown[]): string =>
  out.length === 1
    ? JSON.stringify(out[0])
    : out.length === 0
      ? 'no output'
      : `${out.length} outputs: ${out
          .slice(0, 5)
          .map((o) => JSON.stringify(o))
          .join(', ')}${out.length > 5 ? ', ...' : ''}`;

/** `cancel_expr`'s output: an id or a list of ids; null, no output or [] cancel nothing. */
export function cancelIds(hook: string, out: unknown[]): string[] {
  const first = out[0];
  if (first === undefined || first === null) return [];
  const list = Array.isArray(first) ? first : [first];
  if (!list.every((x): x is string => typeof x === 'string' && x !== '')) {
    throw badInput(`hook '${hook}' cancel_expr must yield an interaction id or a list of ids, got ${shownOutput(out)}`);
  }
  return [...new Set(list)];
}

/**
 * `resume_expr`'s output: `{id, payload}`, an id, `{take: id}`, or a list of
 * them; null, no output or [] resume nothing. One take at most, and not
 * beside resumes: a take's outcome becomes this run's result.
 */
export function resumeAct(hook: string, out: unknown[]): DoorAct | null {
  const first = out[0];
  if (first === undefined || first === null) return null;
  const list = Array.isArray(first) ? first : [first];
  const items: Array<{ id: string; payload: unknown }> = [];
  const takes: string[] = [];
  const bad = () => badInput(`hook '${hook}' resume_expr must yield {id, payload}, an id, {take: id}, or a list of them, got ${shownOutput(out)}`);
  for (const x of list) {
    if (typeof x === 'string' && x !== '') items.push({ id: x, payload: null });
    else if (isObject(x) && 'take' in x) {
      if (typeof x.take !== 'string' || x.take === '' || Object.keys(x).length !== 1) throw bad();
      takes.push(x.take);
    } else if (isObject(x) && typeof x.id === 'string' && x.id !== '') items.push({ id: x.id, payload: x.payload ?? null });
    else throw bad();
  }
  if (takes.length > 0 && (items.length > 0 || takes.length > 1)) {
    throw badInput(
      `hook '${hook}' resume_expr yielded ${takes.length} take(s) and ${items.length} resume(s); a run takes one outcome and resumes nothing beside it`,
    );
  }
  if (takes.length === 1) return { verb: 'take', id: takes[0]! };
  if (items.length === 0) return null;
  const ids = items.map((i) => i.id);
  if (new Set(ids).size !== ids.length) throw badInput(`hook '${hook}' resume_expr names an interaction twice: ${JSON.stringify(ids)}`);
  return { verb: 'resume', items };
}

/** Extras under this prefix are set by Hookyard (the subject approval rules see, the idempotency key), never by a hook. */
export const RESERVED_EXTRA_PREFIX = 'tai42/';

/**
 * `extras_expr`'s output: an object (own keys only), or null / no output for
 * none. A key under `tai42/` is refused: a payload must not choose the
 * subject the approval rules and interactions see.
 */
export function extrasOf(hook: string, out: unknown[]): Record<string, unknown> | null {
  const first = out[0];
  if (first === undefined || first === null) return null;
  if (!isObject(first)) throw badInput(`hook '${hook}' extras_expr must yield an object, got ${JSON.stringify(first)}`);
  const reserved = Object.keys(first).filter((k) => k.startsWith(RESERVED_EXTRA_PREFIX));
  if (reserved.length) {
    throw badInput(
      `hook '${hook}' extras_expr yielded ${reserved.map((k) => JSON.stringify(k)).join(', ')}: keys under '${RESERVED_EXTRA_PREFIX}' are set by Hookyard only`,
    );
  }
  return assignOwn({}, first);
}
