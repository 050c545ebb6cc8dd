import { badInput, conflict, notFound, unauthorized } from '@hookyard/core';
import type { DoorAct, Hook, Interaction, Run } from '@hookyard/core';

/**
 * The door contract's checks on the interactions an act names, made before
 * the hook acts (by a run, and by the dry run that previews it). Who may
 * answer: a `wait` any hook (by subject or by id); an `approval` — resume and
 * take alike — only a hook its rule lists in `answer_hooks`, acting on a run
 * whose event was verified (`run.verified`: a verifier binding checked it at
 * the HTTP door as it was kept). Whether the hook's topic has a binding now
 * does not count: a NATS message on a trusted topic, a replay or a platform
 * event is not verified, so none of them can approve, deny or use up an approval.
 */

/** The run an act is checked for: its id, door and provenance. */
export type ActingRun = Pick<Run, 'id' | 'door' | 'verified'>;

/** The interaction ids an act names. */
export function actIds(act: DoorAct): string[] {
  if (act.verb === 'cancel') return act.ids;
  if (act.verb === 'take') return [act.id];
  return act.items.map((i) => i.id);
}

const VERDICTS: Record<string, 'approved' | 'denied'> = { approve: 'approved', deny: 'denied' };

/** The resolution a resume of `i` with `payload` asks for; bad_input for an approval without a verdict. */
export function resumeStatus(i: Interaction, payload: unknown): 'resumed' | 'approved' | 'denied' {
  if (i.kind === 'wait') return 'resumed';
  const verdict = typeof payload === 'object' && payload !== null ? (payload as { verdict?: unknown }).verdict : undefined;
  const status = typeof verdict === 'string' ? VERDICTS[verdict] : undefined;
  if (!status) throw badInput(`interaction ${i.id} is an approval: resume it with payload.verdict "approve" or "deny", got ${JSON.stringify(verdict ?? null)}`);
  return status;
}

/**
 * Reads and checks every interaction the act names, before anything is
 * written: not_found, conflict (already resolved, naming by whom), bad_input
 * (verdict), unauthorized (an approval this hook, or this run, may not answer).
 */
export async function checkAct(
  act: DoorAct,
  hook: Hook,
  run: ActingRun,
  interactions: { get(id: string): Promise<Interaction | null> },
): Promise<Interaction[]> {
  const found: Interaction[] = [];
  for (const id of actIds(act)) {
    const i = await interactions.get(id);
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
function mayAnswer(i: Interaction, hook: Hook, run: ActingRun): void {
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
