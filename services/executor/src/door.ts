import { conflict, HookyardError } from '@hookyard/core';
import type { Hook, Interaction, KeptOutcome, Run } from '@hookyard/core';
import { actIds, checkAct as checkInteractions, resumeStatus } from '@hookyard/plan';
import type { InteractionStore } from '@hookyard/store';
import type { DoorAct } from './hook-plan';

/**
 * The door contract's acts on open interactions: the checks (@hookyard/plan,
 * shared with the dry run, before the hook acts), then `claim_intent`, the
 * commit, and `acted`.
 */

/** `claim_intent` text: `<verb>:<id>,<id>...`. */
export const intentOf = (act: DoorAct) => `${act.verb}:${actIds(act).join(',')}`;

export function parseIntent(intent: string): { verb: DoorAct['verb']; ids: string[] } | null {
  const m = /^(cancel|resume|take):(.+)$/.exec(intent);
  return m ? { verb: m[1] as DoorAct['verb'], ids: m[2]!.split(',') } : null;
}

/** Who answered, in the interaction's resolution. */
export const byRun = (hook: Hook, run: Run) => `hook:${hook.name} run:${run.id}`;

/** Reads and checks every interaction the act names, before anything is written (see @hookyard/plan's checkAct). */
export function checkAct(act: DoorAct, hook: Hook, run: Run, stores: { interactions: InteractionStore }): Promise<Interaction[]> {
  return checkInteractions(act, hook, run, stores.interactions);
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
