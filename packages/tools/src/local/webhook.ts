import { badInput, unauthorized, injectTrace } from '@hookyard/core';
import { readReply, statusError, withDeadline, type FetchFn } from '../http-call';
import type { LocalTool } from './local-repo';
import { createOutboundGuard, type OutboundGuard } from '../outbound';

export interface WebhookOptions {
  /** Exact host names the tool may call (HOOKS_WEBHOOK_ALLOW_HOSTS); their addresses must still pass the outbound guard. */
  allowHosts: readonly string[];
  /**
   * The outbound guard: a listed host is called through `guard.fetch` (public
   * addresses, or ranges in HOOKS_OUTBOUND_ALLOW_NETS); any other host only
   * when all its addresses are in HOOKS_OUTBOUND_ALLOW_NETS.
   */
  guard?: OutboundGuard;
  /** Default and longest time bound of one call when the call context carries none (`ctx.timeoutMs`, the live tool timeout). */
  timeoutMs: number;
  fetch?: FetchFn;
  /** Largest reply body read (default 1 MiB). */
  maxReplyBytes?: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const SCHEMA = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'http(s) URL on an allowed host (HOOKS_WEBHOOK_ALLOW_HOSTS) or in an allowed range (HOOKS_OUTBOUND_ALLOW_NETS).' },
    method: { type: 'string', enum: METHODS, description: 'Default POST.' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    body: { description: 'Sent as JSON (a string is sent as it is).' },
    timeout_ms: { type: 'integer', minimum: 1 },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/**
 * `webhook`: one HTTP call. Destinations are limited to exact allowed host
 * names (whose addresses must be public unless HOOKS_OUTBOUND_ALLOW_NETS
 * allows their range) and to addresses in HOOKS_OUTBOUND_ALLOW_NETS; the
 * address is checked after resolution and is the one connected to, and
 * redirects are not followed, so a hook whose `url` comes from a payload
 * cannot reach loopback admin ports, cloud metadata or the internal network.
 */
export function webhookTool(options: WebhookOptions): LocalTool {
  const allowHosts = new Set(options.allowHosts.map((h) => h.toLowerCase()));
  // A test's own fetch stands in for the network; without one the guard is the only way out.
  const guard = options.fetch ? undefined : (options.guard ?? createOutboundGuard({ allowNets: [] }));
  const listedFetch = options.fetch ?? guard!.fetch;
  const unlistedFetch = options.fetch ?? guard!.fetchAllowedNetsOnly;
  const maxReply = options.maxReplyBytes ?? 1024 * 1024;

  return {
    info: {
      name: 'webhook',
      description: 'Calls an HTTP endpoint (an allowed host or range) and returns {status, body}.',
      parameters: SCHEMA,
      provider: 'local',
    },
    async run(args, ctx) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        throw badInput(`webhook: url is not a URL: ${JSON.stringify(args.url)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw badInput(`webhook: url scheme must be http or https, got ${JSON.stringify(url.protocol)}`);
      const host = url.hostname.toLowerCase();
      const listed = allowHosts.has(host);
      if (!listed && options.fetch) throw unauthorized(`webhook: host ${JSON.stringify(host)} is not on the allowed hosts`);
      const fetchFn = listed ? listedFetch : unlistedFetch;

      const method = args.method === undefined ? 'POST' : args.method;
      if (typeof method !== 'string' || !METHODS.includes(method))
        throw badInput(`webhook: method must be one of ${METHODS.join(', ')}, got ${JSON.stringify(args.method)}`);
      const headers = new Headers({ 'Content-Type': 'application/json', 'Idempotency-Key': ctx.idempotencyKey });
      if (args.headers !== undefined) {
        if (args.headers === null || typeof args.headers !== 'object' || Array.isArray(args.headers))
          throw badInput(`webhook: headers must be an object of strings`);
        for (const [k, v] of Object.entries(args.headers)) {
          if (typeof v !== 'string') throw badInput(`webhook: headers.${k} must be a string, got ${JSON.stringify(v)}`);
          headers.set(k, v);
        }
      }
      injectTrace(headers);
      // The call's bound is the live tool timeout the executor hands in; `timeout_ms` may only shorten it.
      const bound = ctx.timeoutMs ?? options.timeoutMs;
      let timeout = bound;
      if (args.timeout_ms !== undefined) {
        if (typeof args.timeout_ms !== 'number' || !Number.isInteger(args.timeout_ms) || args.timeout_ms < 1)
          throw badInput(`webhook: timeout_ms must be a whole number >= 1, got ${JSON.stringify(args.timeout_ms)}`);
        timeout = Math.min(args.timeout_ms, bound);
      }
      const body = method === 'GET' || args.body === undefined ? undefined : typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
      const what = `webhook ${method} ${url.origin}${url.pathname}`;

      return withDeadline(what, timeout, ctx.signal, async (signal) => {
        const res = await fetchFn(url, { method, headers, body, signal, redirect: 'manual' });
        const text = await readReply(res, maxReply, what, ctx);
        if (res.status < 200 || res.status > 299) throw statusError(what, res.status, text);
        let parsed: unknown = text;
        if ((res.headers.get('content-type') ?? '').includes('json')) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        return { status: res.status, body: parsed };
      });
    },
  };
}
