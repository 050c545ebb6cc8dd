import { toHookyardError } from '@hookyard/core';
import type { Hook } from '@hookyard/core';
import type { Attempt } from './attempt';
import { byRun, checkAct, commitAct, intentOf } from './door';
import type { DoorAct } from './hook-plan';
import type { AttemptState, ExecutorParts, Outcome } from './executor-parts';

/**
 * The door contract acts on open interactions: checks, then `claim_intent`,
 * the commit, and `acted`. Woken runs are published; the run ends with what
 * it did (a take: the taken outcome's result).
 */
export async function actStep(
  x: ExecutorParts,
  a: Attempt,
  hook: Hook,
  act: DoorAct,
  handOn: Record<string, unknown> | null,
  state: AttemptState,
): Promise<Outcome> {
  const { stores, clock, logger, reporter } = x.deps;
  const { run } = a;
  const found = await checkAct(act, hook, run, stores);
  await a.write((token, now) => stores.runs.setClaimIntent(run.id, token, intentOf(act), now));
  await x.deps.pause?.('claim_intent', run);
  if (a.interruptReason) throw a.interruptError!;
  const committed = await commitAct(act, handOn, byRun(hook, run), found, stores.interactions, () => clock.now());
  await a.write((token, now) => stores.runs.act(run.id, token, { acted: act.verb, actedIds: committed.ids }, now));
  state.acted = true;
  for (const woken of committed.woken) reporter.announce(woken, 'woken');
  if (committed.woken.length > 0) {
    await x.deps.dispatch?.(committed.woken.map((r) => r.id)).catch((err: unknown) => {
      logger.warn({ run: run.id, err: toHookyardError(err).message }, 'could not publish the woken runs; the sweep dispatches them');
    });
  }
  for (const ended of committed.ended) await reporter.finished(ended);
  logger.info({ run: run.id, hook: hook.name, acted: act.verb, ids: committed.ids }, 'door contract acted');
  if (committed.error) return { error: committed.error, acted: true };
  if (act.verb === 'take') return { status: 'succeeded', result: committed.taken?.result ?? null };
  return { status: 'succeeded', result: act.verb === 'cancel' ? { cancelled: committed.ids } : { resumed: committed.ids } };
}
