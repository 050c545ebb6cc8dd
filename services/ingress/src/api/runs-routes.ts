import type { Response, Router } from 'express';
import { countRuns, discardRun, getRun, listRuns, replayRun, resolveRun, retryRun, type RequestOf } from '@hookyard/api';
import { TOOL_EXTRA_IDEMPOTENCY_KEY, badInput, conflict, idempotencyKeyOf, notFound, type Run } from '@hookyard/core';
import { announceRun } from '@hookyard/bus';
import type { ReplayEdit, UnknownOutcomeVerdict } from '@hookyard/store';
import { JSON_MAX_DEPTH, exceedsJsonDepth } from '../door/json-depth';
import { SECURITY_HEADERS } from '../http/headers';
import { callerOf, personOf, roleOf } from './auth';
import { mount } from './declare';
import type { ApiContext } from './context';
import { runListQueryOf, runToWire, type RunListQuery } from './run-wire';
import { failureRoutes } from './runs-failures';
import { ScanSlots, checkWhere, searchRuns } from './run-search';

/**
 * The kept runs: list (filters + cursor; `where` searches a bounded window
 * of them with jq, see run-search.ts), counts of the unfinished states,
 * one run, retry (a failed run runs again as a fresh run, published at
 * once), discard. Declared in @hookyard/api (routes/runs.ts).
 */
export function runRoutes(router: Router, ctx: ApiContext): void {
  const scans = new ScanSlots();
  const opts = { validateAnswers: ctx.validateAnswers };
  // The list's query is checked by its declaration; runListQueryOf checks hook and agent, since and until, scan and where together.
  mount(
    router,
    listRuns,
    async (req, res) => {
      const q = runListQueryOf(req.checked.query);
      if (q.where !== undefined) return answerSearch(ctx, scans, res, { ...q, where: q.where });
      const page = await ctx.stores.runs.list(q.filter, q.limit, q.cursor);
      res.json({ runs: page.runs.map(runToWire), next_cursor: page.nextCursor });
    },
    opts,
  );

  // Before /hook-runs/:id ('counts' is not a run id): the store's per-status index sizes, no run read.
  mount(router, countRuns, async (_req, res) => res.json(await ctx.stores.runs.counts()), opts);

  // Before /hook-runs/:id too ('failures' is not a run id): failed runs grouped by cause.
  failureRoutes(router, ctx);

  mount(
    router,
    getRun,
    async (req, res) => {
      const id = req.checked.params.id;
      const run = await ctx.stores.runs.get(id);
      if (!run) throw notFound(`no run ${JSON.stringify(id)}`);
      res.json(runToWire(run));
    },
    opts,
  );

  mount(
    router,
    retryRun,
    async (req, res) => {
      const id = req.checked.params.id;
      // The store refuses (conflict, with the reason) a run whose hook committed a resume or take.
      // A person signed in through the IdP is named in the history line; a role token stays `operator`.
      const run = await ctx.stores.runs.retry(id, ctx.clock.now(), personOf(res) ? callerOf(res) : undefined);
      ctx.logger.info({ run: id, hook: run.hook }, 'run retried by an operator');
      announceRun(ctx.events, run, 'retried', ctx.logger);
      try {
        await ctx.bus.publish([id]);
        ctx.metrics.dispatched.inc({ source: 'retry' });
      } catch (err) {
        ctx.logger.warn({ err, run: id }, 'publish of a retried run failed; the sweep will dispatch it');
      }
      res.json({ ...runToWire(run), tool_called_again: toolCalledAgain(run) });
    },
    opts,
  );

  mount(
    router,
    replayRun,
    async (req, res) => {
      const id = req.checked.params.id;
      // The body is checked by the declaration; a payload given as JSON text is parsed and bounded here, with lines quoting what it got.
      const edit = replayEditOf(req.checked.body?.payload, ctx.settings.bodyMaxBytes);
      const source = await ctx.stores.runs.get(id);
      if (!source) throw notFound(`no run ${JSON.stringify(id)}`);
      if (source.door === 'agent') {
        throw conflict(
          `run ${id} is a call of ${source.hook}: an agent's call is not replayed by an operator (the agent calls again, or retry it if it failed)`,
        );
      }
      const hook = await ctx.stores.hooks.getHook(source.hook);
      if (!hook) throw conflict(`run ${id} was of hook ${source.hook}, which is no longer registered; register it again to replay the event`);
      const run = await ctx.stores.runs.replay(id, { name: hook.name, topic: hook.topic }, ctx.clock.now(), ctx.settings.dispatchGraceMs, edit);
      ctx.logger.info({ run: run.id, hook: run.hook, replay_of: id, edited_payload: edit !== undefined }, 'run replayed by an operator');
      announceRun(ctx.events, run, 'accepted', ctx.logger);
      try {
        await ctx.bus.publish([run.id]);
        ctx.metrics.dispatched.inc({ source: 'replay' });
      } catch (err) {
        ctx.logger.warn({ err, run: run.id }, 'publish of a replayed run failed; the sweep will dispatch it');
      }
      res.status(201).json(runToWire(run));
    },
    opts,
  );

  mount(
    router,
    discardRun,
    async (req, res) => {
      const id = req.checked.params.id;
      const run = await ctx.stores.runs.discard(id, ctx.clock.now());
      ctx.logger.info({ run: id, hook: run.hook }, 'run discarded by an operator');
      announceRun(ctx.events, run, 'discarded', ctx.logger);
      res.json(runToWire(run));
    },
    opts,
  );

  mount(
    router,
    resolveRun,
    async (req, res) => {
      const id = req.checked.params.id;
      // A person signed in through the IdP is named in the history line; a role token by its role (the audit names the token).
      const verdict = verdictOf(req.checked.body, personOf(res) ? callerOf(res) : roleOf(res));
      // The store refuses (conflict, naming the status and kind) a run not held with an unknown outcome.
      const run = await ctx.stores.runs.resolveUnknown(id, verdict, ctx.clock.now());
      ctx.logger.info({ run: id, hook: run.hook, outcome: verdict.outcome, by: verdict.by }, 'unknown outcome resolved by an operator');
      // A finished event as for any outcome: a waiting agent call and the console's streams see the verdict at once.
      announceRun(ctx.events, run, 'finished', ctx.logger);
      res.json(runToWire(run));
    },
    opts,
  );
}

/**
 * The verdict of a resolve body (its fields already checked by the schema):
 * the rules across fields, one line each — result goes with succeeded only,
 * reason with failed only, and failed needs one.
 */
export function verdictOf(body: RequestOf<typeof resolveRun>['body'], by: string): UnknownOutcomeVerdict {
  const note = body.note?.trim() ? body.note.trim() : null;
  const lines: string[] = [];
  if (body.outcome === 'succeeded') {
    if (body.reason !== undefined) lines.push('reason goes with outcome "failed"; a succeeded verdict carries result (and a note)');
    if (lines.length) throw badInput('resolve refused', lines);
    return { outcome: 'succeeded', result: body.result ?? null, note, by };
  }
  if (body.result !== undefined) lines.push('result goes with outcome "succeeded"; a failed verdict carries reason (and a note)');
  const reason = body.reason?.trim() ?? '';
  if (!reason) lines.push('reason is required with outcome "failed": say what you found the tool did (or did not do)');
  if (lines.length) throw badInput('resolve refused', lines);
  return { outcome: 'failed', reason, note, by };
}

/**
 * A `where` search: one per token at a time (a second is 429, in the error
 * middleware's shape: no error kind maps to 429, as for the API limiter); the
 * client leaving ends the scan at its next yield and frees the token's place
 * at once.
 */
async function answerSearch(ctx: ApiContext, scans: ScanSlots, res: Response, q: RunListQuery & { where: string }): Promise<void> {
  const caller = callerOf(res);
  const release = scans.take(caller);
  if (!release) {
    ctx.logger.warn({ caller }, 'refused a run search: the token already runs one');
    const message = 'this token already runs a where search (GET /api/hook-runs?where=): one at a time per token; retry once it has answered';
    res
      .status(429)
      .set(SECURITY_HEADERS)
      .json({ error: { kind: 'unavailable', message } });
    return;
  }
  const left = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) left.abort();
    release();
  });
  try {
    await checkWhere(ctx.jq, q.where);
    const deps = { runs: ctx.stores.runs, jq: ctx.jq, clock: ctx.clock, jqTimeoutMs: ctx.settings.jqTimeoutMs, steps: ctx.settings.searchStepBudget };
    const found = await searchRuns(deps, { filter: q.filter, where: q.where, limit: q.limit, cursor: q.cursor, window: q.scan }, left.signal);
    if (left.signal.aborted) return;
    res.json({ runs: found.runs.map(runToWire), next_cursor: found.nextCursor, scan: found.scan });
  } finally {
    release();
  }
}

/**
 * What the retry answer says when the run's tool had been called (`acted`
 * start): it is called again (once the approval policy allows it) with the
 * same idempotency key, so the tool can tell the repeat. Null otherwise.
 */
export function toolCalledAgain(run: Run): { idempotency_key: string; extra: string } | null {
  return run.acted === 'start' ? { idempotency_key: idempotencyKeyOf(run), extra: TOOL_EXTRA_IDEMPOTENCY_KEY } : null;
}

/**
 * A replay's payload, its body checked by the declaration (`{"payload"?: a JSON
 * object or its JSON text}`): none replays the event as it was kept. JSON text
 * is parsed here (it must nest at most as deep as a body and hold an object),
 * and the payload is bounded like a door's body (`HOOKS_BODY_MAX_BYTES`, its
 * compact JSON). Every bad value is one line of a 400.
 */
export function replayEditOf(given: Record<string, unknown> | string | undefined, maxBytes: number): ReplayEdit | undefined {
  if (given === undefined) return undefined;
  const lines: string[] = [];
  let payload: unknown = given;
  if (typeof given === 'string') {
    if (exceedsJsonDepth(given)) throw badInput('replay refused', [`payload nests deeper than ${JSON_MAX_DEPTH} levels`]);
    try {
      payload = JSON.parse(given);
    } catch (err) {
      throw badInput('replay refused', [`payload is not valid JSON (${(err as Error).message}), got ${JSON.stringify(given.slice(0, 80))}`]);
    }
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    lines.push(`payload must be a JSON object (a run's payload) or its JSON text, got ${JSON.stringify(payload).slice(0, 80)}`);
  else {
    const bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
    if (bytes > maxBytes) lines.push(`payload is ${bytes} bytes as JSON, more than the door's body limit of ${maxBytes} (HOOKS_BODY_MAX_BYTES)`);
  }
  if (lines.length) throw badInput('replay refused', lines);
  return { payload };
}
