import { createHash } from 'node:crypto';
import type { ErrorKind } from './errors';
import type { Run } from './types';

/**
 * Failures grouped by cause. A failure message is masked (numbers, ids,
 * addresses, times) into a pattern, and the pattern's hash is its
 * fingerprint: "connect ECONNREFUSED 10.0.0.5:8080" and "connect
 * ECONNREFUSED 10.0.0.7:9090" share one. Failed runs group by hook, error
 * kind and fingerprint (`groupFailures`).
 */

/** Only this many characters of a message are masked (a longer tail is cut first), so a huge message costs a bounded time. */
export const FAILURE_MESSAGE_SCAN_MAX = 2_000;

/** A fingerprint: 16 lowercase hex characters (the start of the SHA-256 of the masked message). */
export const FINGERPRINT_PATTERN = /^[0-9a-f]{16}$/;

const URL_RE = /\b([a-z][a-z0-9+.-]{1,15}):\/\/[^\s/?#"'<>]+([^\s"'<>]*)/gi;
// Each address-like pattern starts only where a token starts (the lookbehinds), so a message costs linear time, never quadratic.
const EMAIL_RE = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const TIME_RE = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/gi;
const IPV6_BRACKETED_RE = /\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d{1,5})?/gi;
const IPV4_RE = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g;
const IPV6_RE = /(?<![\w:])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?)(?![\w:])/gi;
const HOST_PORT_RE = /(?<![A-Za-z0-9.-])(?:localhost|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*):\d{1,5}\b/gi;
const LOOKUP_HOST_RE = /\b(ENOTFOUND|EAI_AGAIN)\s+[^\s,;)]+/g;
const TOKEN_RE = /(?<![A-Za-z0-9_-])(?:0x[0-9a-f]+|[A-Za-z0-9_-]{8,})(?![A-Za-z0-9_-])/gi;
const NUMBER_RE = /(?<![A-Za-z0-9_])\d+(?:[.,]\d+)*/g;

/** An id-like token: mixes letters and digits (a run id, a hex digest, `evt_1NxY…`), but not an upper-case code such as ERR_SSL_TLSV1_ALERT. */
function tokenMask(token: string): string {
  if (/^0x[0-9a-f]+$/i.test(token)) return '<n>';
  if (!/\d/.test(token) || !/[A-Za-z]/.test(token) || /^[A-Z][A-Z0-9_]*$/.test(token)) return token;
  return '<id>';
}

/** A URL keeps its scheme and path shape; its host (with user and port) and its query values are masked. */
function urlMask(_all: string, scheme: string, rest: string): string {
  const trail = /[.,;:)\]]+$/.exec(rest)?.[0] ?? '';
  const body = trail ? rest.slice(0, -trail.length) : rest;
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const query = q < 0 ? '' : body.slice(q).replace(/=([^&#]*)/g, '=<v>');
  return `${scheme.toLowerCase()}://<host>${path}${query}${trail}`;
}

/**
 * A failure message with what varies from one occurrence to the next masked:
 * URLs' hosts and query values (`<host>`, `<v>`), emails (`<email>`), UUIDs
 * (`<uuid>`), ISO times (`<time>`), IP addresses with their port (`<ip>`),
 * `host:port` and the host a DNS lookup missed (`<host>`), id-like tokens
 * (`<id>`) and numbers (`<n>`); whitespace runs become one space. Pure and
 * deterministic: two messages of one cause read the same.
 */
export function maskFailureMessage(message: string): string {
  return message
    .slice(0, FAILURE_MESSAGE_SCAN_MAX)
    .replace(URL_RE, urlMask)
    .replace(EMAIL_RE, '<email>')
    .replace(UUID_RE, '<uuid>')
    .replace(TIME_RE, '<time>')
    .replace(IPV6_BRACKETED_RE, '<ip>')
    .replace(IPV4_RE, '<ip>')
    .replace(IPV6_RE, (m) => (m === '::' ? m : '<ip>'))
    .replace(HOST_PORT_RE, '<host>')
    .replace(LOOKUP_HOST_RE, '$1 <host>')
    .replace(TOKEN_RE, tokenMask)
    .replace(NUMBER_RE, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

const patternFingerprint = (pattern: string): string => createHash('sha256').update(pattern).digest('hex').slice(0, 16);

/** The fingerprint of a failure message: 16 hex characters of the SHA-256 of its masked form (`maskFailureMessage`). */
export function failureFingerprint(message: string): string {
  return patternFingerprint(maskFailureMessage(message));
}

/** One cause of failures: the failed runs of one hook with one error kind and one message fingerprint. */
export interface FailureGroup {
  /** The runs' hook (an agent's calls: its hook slot `agent:<name>`). */
  hook: string;
  kind: ErrorKind;
  fingerprint: string;
  /** The masked message all the group's runs share. */
  pattern: string;
  /** The message of the group's newest run, as it was. */
  sample_message: string;
  /** The id of the group's newest run. */
  sample_run: string;
  count: number;
  /** When the group's first and latest runs failed (their finished_at), ISO. */
  first_seen: string;
  last_seen: string;
}

/** When a failed run failed: its finished_at (set when it was held), else its last update. */
const failedAt = (r: Pick<Run, 'finished_at' | 'updated_at'>): string => r.finished_at ?? r.updated_at;

/**
 * Failed runs grouped by hook, error kind and fingerprint; a run without an
 * error is not grouped. Most runs first, then the latest seen, then by key, so
 * the order is stable. Runs may come in any order; the sample is the run that
 * failed last.
 */
export function groupFailures(runs: Iterable<Pick<Run, 'id' | 'hook' | 'error' | 'finished_at' | 'updated_at'>>): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const r of runs) {
    if (!r.error) continue;
    const pattern = maskFailureMessage(r.error.message);
    const fingerprint = patternFingerprint(pattern);
    const key = `${r.hook}\n${r.error.kind}\n${fingerprint}`;
    const at = failedAt(r);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, {
        hook: r.hook,
        kind: r.error.kind,
        fingerprint,
        pattern,
        sample_message: r.error.message,
        sample_run: r.id,
        count: 1,
        first_seen: at,
        last_seen: at,
      });
      continue;
    }
    g.count += 1;
    if (at < g.first_seen) g.first_seen = at;
    if (at > g.last_seen || (at === g.last_seen && r.id > g.sample_run)) {
      g.last_seen = at;
      g.sample_message = r.error.message;
      g.sample_run = r.id;
    }
  }
  return [...groups.values()].sort(
    (a, b) =>
      b.count - a.count ||
      (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0) ||
      (a.hook + a.kind + a.fingerprint < b.hook + b.kind + b.fingerprint ? -1 : 1),
  );
}
