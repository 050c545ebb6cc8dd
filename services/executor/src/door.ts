import { conflict, notFound, unauthorized, badInput, HookyardError } from '@hookyard/core';
import type { Hook, Interaction, KeptOutcome, Run } from '@hookyard/core';
import type { InteractionStore, ResolveInput } from '@hookyard/store';
import type { DoorAct } from './hook-plan';

/**
 * The door contract's acts on open interactions: checks (before the hook
 * acts), then `claim_intent`, the commit, and `acted`. Who may answer: a
 * `wait` any hook (by subject or by id); an `approval` — resume and take
 * alike — only a hook its rule lists in `answer_hooks`, acting on a run whose
 * event was verified (`run.verified`: a verifier binding checked it at the
 * HTTP door as it was kept). Whether the hook's topic has a binding now does
 * not count: a NATS message on a trusted topic, a replay or a platform event
 * is not verified, so none of them can approve, deny or use up an approval.
 */

/** The interaction ids an act names. */
export function actIds(act: DoorAct): string[] {
  if (act.verb === 'cancel') return act.ids;
  if (act.verb === 'take') return [act.id];
  return act.items.map((i) => i.id);
}

/** `claim_intent` text: `<verb>:<id>,<id>...`. */
export const intentOf = (act: DoorAct) => `${act.verb}:${actIds(act).join(',')}`;

export function parseIntent(intent: string): { verb: DoorAct['verb']; ids: string[] } | null {
  const m = /^(cancel|resume|take):(.+)$/.exec(intent);
  return m ? { verb: m[1] as DoorAct['verb'], ids: m[2]!.split(',') } : null;
}

const VERDICTS: Record<string, 'approved' | 'denied'> = { approve: 'approved', deny: 'denied' };

/** The resolution a resume of `i` with `payload` asks for; bad_input for an approval without a verdict. */
export function resumeStatus(i: Interaction, payload: unknown): ResolveInput['status'] {
  if (i.kind === 'wait') return 'resumed';
  const verdict = typeof payload === 'object' && payload !== null ? (payload as { verdict?: unknown }).verdict : undefined;
  const status = typeof verdict === 'string' ? VERDICTS[verdict] : undefined;
  if (!status) throw badInput(`interaction ${i.id} is an approval: resume it with payload.verdict "approve" or "deny", got ${JSON.stringify(verdict ?? null)}`);
  return status;
}

/** Who answered, in the interaction's resolution. */
export const byRun = (hook: Hook, run: Run) => `hook:${hook.name} run:${run.id}`;

/**
 * Reads and checks every interaction the act names, before anything is
 * written: not_found, conflict (already resolved, naming by whom), bad_input
 * (verdict), unauthorized (an approval this hook, or this run, may not answer).
 */
export async function checkAct(act: DoorAct, hook: Hook, run: Run, stores: { interactions: InteractionStore }): Promise<Interaction[]> {
  const found: Interaction[] = [];
  for (const id of actIds(act)) {
    const i = await stores.interactions.get(id);
    if (!i) throw notFound(`hook '${hook.name}' ${act.verb}: interaction ${id} not found`);
    if (act.verb === 'take') {
      if (i.status === 'taken') throw conflict(`hook '${hook.name}' take: interaction ${id} was already taken (by ${i.taken?.by} at ${i.taken?.at})`);
      if (i.status !== 'resumed' && i.status !== 'approved')
        throw conflict(`hook '${hook.name}' take: interaction ${id} is ${i.status}; only a resumed interaction's outcome can be taken`);
    } else if (i.status !== 'open') {
      const r = i.resolution;
      throw conflict(`hook '${hook.name}' ${act.verb}: interaction ${id} is already ${i.status}${r ? ` (by ${r.by} via ${r.via} at ${r.at})` : ''}`);
    }
    if (i.kind === 'approval') mayAnswer(i, hook, run);
    if (act.verb === 'resume') resumeStatus(i, act.items.find((x) => x.id === id)?.payload);
    found.push(i);
  }
  return found;
}

/** The answer rule of an approval (resume and take): a hook in `answer_hooks`, acting on a verified event. */
function mayAnswer(i: Interaction, hook: Hook, run: Run): void {
  if (!i.answer_hooks.includes(hook.name)) {
    throw unauthorized(
      `hook '${hook.name}' may not answer approval ${i.id}: its rule${i.rule ? ` '${i.rule}'` : ''} lists answer_hooks ${JSON.stringify(i.answer_hooks)}`,
    );
  }
  if (run.verified !== true) {
    throw unauthorized(
      `hook '${hook.name}' may not answer approval ${i.id}: run ${run.id} came through the ${run.door} door unverified; only a verified event (a verifier binding checked its signature) may answer an approval`,
    );
  }
}

export interface Committed {
  ids: string[];
  /** Runs the commit woke (due now: publish them) or ended (cancelled: report them). */
  woken: Run[];
  ended: Run[];
  taken: KeptOutcome | null;
  /** A commit that failed after some ids committed (the run has acted on `ids`). */
  error: HookyardError | null;
}

/** Commits the act, one interaction at a time; stops at the first refusal and says what committed. */
export async function commitAct(
  act: DoorAct,
  handOn: Record<string, unknown> | null,
  by: string,
  found: Interaction[],
  interactions: InteractionStore,
  now: () => number,
): Promise<Committed> {
  const out: Committed = { ids: [], woken: [], ended: [], taken: null, error: null };
  if (act.verb === 'take') {
    out.taken = (await interactions.take(act.id, by, now())).outcome;
    out.ids.push(act.id);
    return out;
  }
  for (const i of found) {
    const payload = act.verb === 'resume' ? (act.items.find((x) => x.id === i.id)?.payload ?? null) : null;
    const status = act.verb === 'cancel' ? 'cancelled' : resumeStatus(i, payload);
    try {
      const { run } = await interactions.resolve(i.id, { status, by, via: 'hook', payload, extras: handOn }, now());
      out.ids.push(i.id);
      if (run?.status === 'pending') out.woken.push(run);
      else if (run) out.ended.push(run);
    } catch (err) {
      if (out.ids.length === 0) throw err;
      out.error = err instanceof HookyardError ? err : conflict(String(err));
      break;
    }
  }
  return out;
}
