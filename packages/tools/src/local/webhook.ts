import { isIP } from 'node:net';
import { badInput, unauthorized } from '@hookyard/core';
import { readBounded, statusError, withDeadline, type FetchFn } from '../http-call';
import type { LocalTool } from './local-repo';

export interface WebhookOptions {
  /** Exact host names (besides loopback) the tool may call. */
  allowHosts: readonly string[];
  /** Default and longest time bound of one call. */
  timeoutMs: number;
  fetch?: FetchFn;
  /** Largest reply body read (default 1 MiB). */
  maxReplyBytes?: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const SCHEMA = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'http(s) URL on loopback or an allowed host.' },
    method: { type: 'string', enum: METHODS, description: 'Default POST.' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    body: { description: 'Sent as JSON (a string is sent as it is).' },
    timeout_ms: { type: 'integer', minimum: 1 },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/** Loopback: `localhost`, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * `webhook`: one HTTP call. Destinations are limited to loopback and exact
 * allowed host names, and redirects are not followed, so a hook cannot
 * reach into the internal network (directly or by a 3xx bounce).
 */
export function webhookTool(options: WebhookOptions): LocalTool {
  const allowHosts = new Set(options.allowHosts.map((h) => h.toLowerCase()));
  const fetchFn = options.fetch ?? fetch;
  const maxReply = options.maxReplyBytes ?? 1024 * 1024;

  return {
    info: {
      name: 'webhook',
      description: 'Calls an HTTP endpoint (loopback or an allowed host) and returns {status, body}.',
      parameters: SCHEMA as unknown as Record<string, unknown>,
      provider: 'local',
    },
    async run(args, ctx) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        throw badInput(`webhook: url is not a URL: ${JSON.stringify(args.url)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badInput(`webhook: url scheme must be http or https, got ${JSON.stringify(url.protocol)}`);
      const host = url.hostname.toLowerCase();
      if (!isLoopbackHost(host) && !allowHosts.has(host)) throw unauthorized(`webhook: host ${JSON.stringify(host)} is not on the allowed hosts`);

      const method = args.method === undefined ? 'POST' : args.method;
      if (typeof method !== 'string' || !METHODS.includes(method)) throw badInput(`webhook: method must be one of ${METHODS.join(', ')}, got ${JSON.stringify(args.method)}`);
      const headers = new Headers({ 'Content-Type': 'application/json', 'Idempotency-Key': ctx.idempotencyKey });
      if (args.headers !== undefined) {
        if (args.headers === null || typeof args.headers !== 'object' || Array.isArray(args.headers)) throw badInput(`webhook: headers must be an object of strings`);
        for (const [k, v] of Object.entries(args.headers)) {
          if (typeof v !== 'string') throw badInput(`webhook: headers.${k} must be a string, got ${JSON.stringify(v)}`);
          headers.set(k, v);
        }
      }
      let timeout = options.timeoutMs;
      if (args.timeout_ms !== undefined) {
        if (typeof args.timeout_ms !== 'number' || !Number.isInteger(args.timeout_ms) || args.timeout_ms < 1) throw badInput(`webhook: timeout_ms must be a whole number >= 1, got ${JSON.stringify(args.timeout_ms)}`);
        timeout = Math.min(args.timeout_ms, options.timeoutMs);
      }
      const body = method === 'GET' || args.body === undefined ? undefined : typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
      const what = `webhook ${method} ${url.origin}${url.pathname}`;

      return withDeadline(what, timeout, ctx.signal, async (signal) => {
        const res = await fetchFn(url, { method, headers, body, signal, redirect: 'manual' });
        const text = await readBounded(res, maxReply, what);
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
