import { HookyardError, conflict, notFound, toHookyardError, type Interaction, type ResolutionVia, type Run } from '@hookyard/core';
import { announceRun, type RunBus, type RunEventSink } from '@hookyard/bus';
import type { Clock, Logger } from '@hookyard/core';
import type { Stores } from '@hookyard/store';

export type ApprovalVerdict = 'approve' | 'deny';

export interface AnswerDeps {
  stores: Pick<Stores, 'interactions'>;
  bus: Pick<RunBus, 'publish'>;
  clock: Clock;
  logger: Logger;
  /** Where the woken run is announced (`woken`); absent, it is not. */
  events?: RunEventSink;
}

/**
 * Answers an open approval once (API, signed link): checks it is an approval
 * and not past its expiry, resolves it in the store (one atomic step with
 * waking its run; a second answer is the store's 409 naming who answered
 * first), then publishes the woken run. A failed publish is logged: the
 * scheduler's sweep dispatches the due run.
 */
export async function answerApproval(
  deps: AnswerDeps,
  id: string,
  verdict: ApprovalVerdict,
  who: { by: string; via: ResolutionVia; reason: string },
): Promise<{ interaction: Interaction; run: Run | null }> {
  const current = await deps.stores.interactions.get(id);
  if (!current) throw notFound(`interaction ${id} not found`);
  if (current.kind !== 'approval') {
    throw conflict(
      `interaction ${id} is a ${current.kind}, not an approval: approve and deny answer approvals (a wait is resumed by a hook's resume_expr or cancelled)`,
    );
  }
  const now = deps.clock.now();
  if (current.status === 'open' && Date.parse(current.expires_at) <= now) {
    throw conflict(`interaction ${id} expired at ${current.expires_at}; the scheduler applies its on_timeout (${current.on_timeout ?? 'deny'})`);
  }
  const out = await deps.stores.interactions
    .resolve(id, { status: verdict === 'approve' ? 'approved' : 'denied', by: who.by, via: who.via, reason: who.reason }, now)
    .catch((err: unknown) => {
      throw resolveFailure(id, err);
    });
  deps.logger.info(
    { interaction: id, run: out.interaction.run, verdict, by: who.by, via: who.via },
    `approval ${verdict === 'approve' ? 'approved' : 'denied'}`,
  );
  if (out.run) announceRun(deps.events, out.run, out.run.status === 'pending' ? 'woken' : 'finished', deps.logger);
  if (out.run && out.run.status === 'pending') {
    try {
      await deps.bus.publish([out.run.id]);
    } catch (err) {
      deps.logger.warn({ run: out.run.id, err: toHookyardError(err).message }, 'publish of the woken run failed; the sweep dispatches it');
    }
  }
  return out;
}

/**
 * A resolve that failed, as its caller is told: sent without an answer, it
 * may have landed, and GET /api/interactions/{id} tells (its status and
 * resolution); a second answer is a 409 naming the first if it did.
 */
export function resolveFailure(id: string, err: unknown): HookyardError {
  const e = toHookyardError(err);
  if (!e.outcomeUnknown) return e;
  return new HookyardError(
    'unavailable',
    `interaction ${id}: outcome unknown, the resolve was sent and no answer came (${e.message}); it may have landed. ` +
      `GET /api/interactions/${id} shows whether it did (its status and resolution)`,
    { cause: err, outcomeUnknown: true },
  );
}
