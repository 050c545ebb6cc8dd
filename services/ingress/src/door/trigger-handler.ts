import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PLATFORM_EVENT_TOPICS, keptHeaders, toHookyardError, type Hook } from '@hookyard/core';
import type { KeepEventInput, KeptRun } from '@hookyard/store';
import { sendJson } from '../http/headers';
import { ANSWERS, acceptedBody, createAcceptedCounter, type AcceptDeps } from './accept';
import { createAcceptAnnouncer } from './announce';
import type { LimitStep } from './door-handler';
import { parsePayload } from './payload';
import { createPublishBatcher } from './publish-batch';
import { drainRefusedBody, readBody } from './read-body';
import { tooManyBody } from './too-many';

export interface TriggerDoorOptions extends AcceptDeps {
  queryMaxBytes: number;
  readTimeoutMs: number;
  limit?: LimitStep;
}

/**
 * The one answer for a wrong, revoked, expired or used-up token (and a link
 * whose hook is gone): the same body and status for all, so a prober learns
 * nothing about which tokens exist.
 */
export const TRIGGER_NOT_FOUND = '{"error":"not found"}';
const METHOD_NOT_ALLOWED = '{"error":"method not allowed"}';
const TIMEOUT = '{"error":"request body not received in time"}';
const INTERNAL = '{"error":"internal error"}';
/** Longer than any token we make; longer paths are refused unhashed (still the same 404). */
const TOKEN_MAX_LENGTH = 256;
const DRAIN_MS = 5000;

/** A token's SHA-256 (hex): the only form the store keeps and looks a link up by. */
export function triggerTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * `POST /trigger/{token}`: a trigger link fires its one hook. Order: method ->
 * query cap -> flood limiter (per client and per link) -> body cap and read
 * timeout -> parse (as the public door: multipart with a file is refused) ->
 * the link's use, found by the token's hash and counted in one store step ->
 * one run of the link's hook (door `trigger`, not verified, `trigger_link`)
 * -> answer as the door -> publish. A use is given back only when its run
 * provably was not kept (no hook, or the keep was never sent); a keep whose
 * answer was lost is 503 "accept outcome unknown" with the use spent. The
 * token is never logged; the link id is.
 */
export function createTriggerHandler(options: TriggerDoorOptions): (req: IncomingMessage, res: ServerResponse, token: string) => void {
  const opts = options;
  const countAccepted = opts.countAccepted ?? createAcceptedCounter(opts.metrics);
  const publish = createPublishBatcher(opts);
  const announce = opts.events ? createAcceptAnnouncer(opts.events) : undefined;
  const QUERY_TOO_LONG = JSON.stringify({ error: `query string too long: the limit is ${opts.queryMaxBytes} bytes (HOOKS_QUERY_MAX_BYTES)` });
  const BODY_TOO_LARGE = JSON.stringify({ error: `body too large: the limit is ${opts.bodyMaxBytes} bytes (HOOKS_BODY_MAX_BYTES)` });
  const answer = (res: ServerResponse, status: number, body: string, extra?: Record<string, string>, close = false) => {
    opts.metrics.doorRequests.labels(String(status)).inc();
    sendJson(res, status, body, extra, close);
  };

  async function handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const pendingBody = req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
    if (req.method !== 'POST') return answer(res, 405, METHOD_NOT_ALLOWED, { Allow: 'POST' }, pendingBody);
    if (token.length === 0 || token.length > TOKEN_MAX_LENGTH) return answer(res, 404, TRIGGER_NOT_FOUND, undefined, pendingBody);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const query = q < 0 ? '' : url.slice(q + 1);
    if (Buffer.byteLength(query) > opts.queryMaxBytes) return answer(res, 414, QUERY_TOO_LONG, undefined, pendingBody);
    const hash = triggerTokenHash(token);
    if (opts.limit) {
      // Per client and per presented link (its hash, never the token): one busy link does not throttle another.
      const verdict = await opts.limit(req, `trigger-${hash.slice(0, 16)}`);
      if (!verdict.ok) {
        const retry = Math.max(1, Math.ceil(verdict.retryAfterSeconds));
        return answer(res, 429, tooManyBody('link', retry), { 'Retry-After': String(retry) }, pendingBody);
      }
    }
    const read = await readBody(req, opts.bodyMaxBytes, opts.readTimeoutMs);
    if (!read.ok) {
      if (read.status === 0) return;
      drainRefusedBody(req, { maxBytes: Math.min(64 * 1024 * 1024, Math.max(1024 * 1024, 4 * opts.bodyMaxBytes)), maxMs: DRAIN_MS });
      return answer(res, read.status, read.status === 413 ? BODY_TOO_LARGE : TIMEOUT, undefined, true);
    }
    // Parsed before the use is taken: a refused body does not spend a use.
    const parsed = await parsePayload({
      contentType: req.headers['content-type'],
      rawBody: read.body,
      query,
      maxFieldBytes: opts.bodyMaxBytes,
      keepJsonText: true,
    });
    if (!parsed.ok) return answer(res, parsed.status, JSON.stringify(parsed.body));

    const now = opts.clock.now();
    const use = await opts.stores.hooks.useTriggerLink(hash, now);
    if (!use.ok) {
      opts.logger.info({ reason: use.reason }, 'trigger link refused');
      return answer(res, 404, TRIGGER_NOT_FOUND);
    }
    const link = use.link;
    const giveBack = async (why: string) => {
      opts.logger.warn({ link: link.id, hook: link.hook }, `trigger link use given back: ${why}`);
      await opts.stores.hooks
        .returnTriggerLinkUse(link.id)
        .catch((err: unknown) => opts.logger.error({ err, link: link.id }, 'could not give back a trigger link use'));
    };
    let hook: Hook | null;
    try {
      hook = await opts.stores.hooks.getHook(link.hook);
    } catch (err) {
      // Nothing was sent to keep: the use goes back.
      await giveBack('its hook could not be read');
      opts.logger.error({ err, link: link.id, hook: link.hook }, 'trigger link: could not read its hook; nothing kept');
      return answer(res, ANSWERS.acceptFailed.status, ANSWERS.acceptFailed.body);
    }
    // A platform topic is fired by the platform only: a link never forges its events.
    if (!hook || PLATFORM_EVENT_TOPICS.has(hook.topic)) {
      await giveBack('its hook is gone or on a platform topic');
      return answer(res, 404, TRIGGER_NOT_FOUND);
    }
    const topic = hook.topic;
    const input: KeepEventInput = {
      topic,
      payload: parsed.payload,
      ...(parsed.json === undefined ? {} : { payloadJson: parsed.json }),
      now,
      dispatchGraceMs: opts.dispatchGraceMs,
      door: 'trigger',
      verified: false,
      triggerLink: link.id,
      headers: keptHeaders(req.headers),
    };
    let kept: KeptRun[];
    try {
      kept = await opts.stores.runs.keepHookRun(input, hook.name);
    } catch (err) {
      const e = toHookyardError(err);
      // Given back only when the keep provably never ran (never sent): a keep whose answer was
      // lost may have kept the run, and a second use would fire a one-use link twice.
      if (e.notSent) {
        await giveBack('the run could not be kept (the keep was never sent)');
        opts.logger.error({ err, link: link.id, hook: link.hook }, 'trigger link: could not keep the run; nothing kept');
        return answer(res, ANSWERS.acceptFailed.status, ANSWERS.acceptFailed.body);
      }
      if (e.outcomeUnknown) {
        opts.logger.error(
          { err, link: link.id, hook: link.hook },
          'trigger link: the keep was sent but no answer came; its use stays spent (answered 503 accept outcome unknown; GET /api/hook-runs?hook= shows whether it was kept)',
        );
        return answer(res, ANSWERS.outcomeUnknown.status, ANSWERS.outcomeUnknown.body);
      }
      opts.logger.error({ err, link: link.id, hook: link.hook }, 'trigger link: the store refused the keep; its use stays spent');
      return answer(res, ANSWERS.acceptFailed.status, ANSWERS.acceptFailed.body);
    }
    if (kept.length === 0) {
      await giveBack('its hook left the topic meanwhile');
      return answer(res, 404, TRIGGER_NOT_FOUND);
    }
    for (const run of kept) countAccepted(topic, run.hook);
    opts.logger.info({ link: link.id, hook: link.hook, run: kept[0]!.id, uses: link.uses }, 'trigger link fired');
    answer(res, 200, acceptedBody(kept));
    announce?.(topic, kept, now);
    publish(kept.map((k) => k.id));
  }

  return (req, res, token) => {
    handle(req, res, token).catch((err: unknown) => {
      opts.logger.error({ err }, 'trigger door failed unexpectedly');
      answer(res, 500, INTERNAL, undefined, true);
    });
  };
}
