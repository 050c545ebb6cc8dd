import { badInput, quote } from '@hookyard/core';
import type { CallPlan, OpenApiOperation } from './operations';

export interface OpenApiRequest {
  url: string;
  headers: Headers;
  body: string | undefined;
}

/** A parameter value as text: strings as they are, anything else as compact JSON. */
const text = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

/**
 * Maps a call's arguments back onto the wire: path parameters into the
 * template (percent-encoded), query parameters into the query string (a list
 * repeats the key), header parameters into headers, the rest into the JSON
 * body. An argument the operation has no place for is refused, not dropped.
 */
/** `.` or `..`, also spelled with %2e or %252e (any case, decoded a few times over). */
function isDotSegment(segment: string): boolean {
  let s = segment;
  for (let i = 0; i < 4 && /%(?:2e|25)/i.test(s); i++) s = s.replace(/%2e/gi, '.').replace(/%25/g, '%');
  return s === '.' || s === '..';
}

export function buildRequest(
  what: string,
  base: string,
  op: OpenApiOperation,
  args: Record<string, unknown>,
  baseHeaders: Record<string, string>,
): OpenApiRequest {
  const plan: CallPlan = op.plan;
  const placed = new Set<string>([...plan.path, ...plan.query, ...plan.header]);

  let path = op.path;
  for (const name of plan.path) {
    const v = args[name];
    if (v === undefined || v === null) throw badInput(`${what}: path parameter '${name}' is missing`);
    const segment = text(v);
    // `.` and `..` survive percent-encoding and the URL parser resolves them: /pets/{petId}/photos with
    // petId ".." would become /photos. Their encoded forms (%2e, %2E) are refused too, for servers that decode twice.
    if (isDotSegment(segment)) throw badInput(`${what}: path parameter '${name}' must not be a dot segment, got ${quote(segment)}`);
    path = path.split(`{${name}}`).join(encodeURIComponent(segment));
  }
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  for (const name of plan.query) {
    const v = args[name];
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(name, text(item));
  }

  // Stored headers first; the operation's header parameters set theirs over them.
  const headers = new Headers(baseHeaders);
  for (const name of plan.header) {
    const v = args[name];
    if (v === undefined || v === null) continue;
    const value = text(v);
    if (/[\r\n\0]/.test(value)) throw badInput(`${what}: header parameter '${name}' must not contain CR, LF or NUL`);
    headers.set(name, value);
  }

  let body: string | undefined;
  if (plan.body === 'whole') {
    if (args[plan.bodyArg] !== undefined) body = JSON.stringify(args[plan.bodyArg]);
    placed.add(plan.bodyArg);
  } else if (plan.body === 'merge') {
    const fields = Object.fromEntries(Object.entries(args).filter(([k]) => !placed.has(k)));
    for (const k of Object.keys(fields)) placed.add(k);
    body = JSON.stringify(fields);
  }
  const unplaced = Object.keys(args).filter((k) => !placed.has(k));
  if (unplaced.length > 0) throw badInput(`${what} has no parameter ${unplaced.map((k) => quote(k)).join(', ')}`);
  if (body !== undefined && !headers.has('content-type')) headers.set('Content-Type', 'application/json');
  return { url: url.toString(), headers, body };
}

/** A 2xx reply: parsed JSON when it says it is JSON, its text otherwise. */
export function parseReply(what: string, contentType: string | null, body: string): unknown {
  if (!contentType || !/\bjson\b/i.test(contentType) || body === '') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw badInput(`${what} replied with a body that says JSON but is not: ${quote(body)}`);
  }
}
