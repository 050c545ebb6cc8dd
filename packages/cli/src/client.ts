import { readFileSync } from 'node:fs';

/** What a server refusal said, for `--json` (the error kind and message as the server sent them). */
export interface WireRefusal {
  status: number;
  kind: string;
  message: string;
}

/** A failure the CLI reports in one line (plus one indented line per detail), with an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly details: readonly string[] = [],
    /** Set when the server refused: its status, kind and message. */
    readonly wire?: WireRefusal,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Exit codes: 0 ok, 1 the server refused or failed, 2 bad usage (or configuration), 3 the server could not be reached. */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** Default management API base URL (the embedded default's address). */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * Every management API answer carries this header (see the ingress router): an
 * answer without it came from something that is not Hookyard.
 */
export const API_MARK_HEADER = 'x-hookyard-api';

/** How long one management request may take before the CLI gives up (exit 3). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface ClientOptions {
  url: string;
  token: string | undefined;
  /** How long one request may take (default 30 s). */
  timeoutMs?: number;
}

/** The error body every management route answers with: `{"error": {kind, message, details?}}`. */
interface WireError {
  kind?: unknown;
  message?: unknown;
  details?: unknown;
}

/** A management API path (under `api/`) with its query, segments URL-encoded. */
export function apiPath(segments: readonly string[], query?: URLSearchParams): string {
  const path = ['api', ...segments.map(encodeURIComponent)].join('/');
  const q = query?.toString();
  return q ? `${path}?${q}` : path;
}

/** A thin client of the management API. Errors quote the server's status, kind, message and details. */
export class ApiClient {
  private readonly base: URL;

  constructor(private readonly opts: ClientOptions) {
    let base: URL;
    try {
      base = new URL(opts.url.endsWith('/') ? opts.url : `${opts.url}/`);
    } catch {
      throw new CliError(`--url ${JSON.stringify(opts.url)} is not a URL (e.g. ${DEFAULT_URL})`, EXIT.usage);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new CliError(`--url ${JSON.stringify(opts.url)} must be an http:// or https:// URL`, EXIT.usage);
    }
    // The CLI adds /api itself: a URL ending in /api would reach /api/api/... and a 404 that says nothing useful.
    if (/\/api\/?$/.test(base.pathname)) {
      const root = `${base.origin}${base.pathname.replace(/\/api\/?$/, '')}`;
      throw new CliError(
        `--url ${JSON.stringify(opts.url)} ends in /api: point it (or HOOKYARD_URL) at the server root, e.g. --url ${root}; the CLI adds /api itself`,
        EXIT.unreachable,
      );
    }
    this.base = base;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  /**
   * Follows a server-sent-events route: `onEvent(event, data)` for each frame
   * that has data, until the server ends the stream (resolves) or `signal`
   * aborts it. A refusal is the same error as `call`'s.
   */
  async stream(path: string, onEvent: (event: string, data: string) => void, signal?: AbortSignal): Promise<void> {
    const token = this.opts.token?.trim();
    if (!token) {
      throw new CliError('no API token: pass --token or set HOOKYARD_TOKEN (the embedded default prints one at start)', EXIT.usage);
    }
    let res: Response;
    try {
      res = await fetch(new URL(path, this.base).toString(), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
    } catch (err) {
      if (signal?.aborted) return;
      throw new CliError(
        `cannot reach ${this.opts.url} (${describeFetchFailure(err)}); is 'hookyard serve' running there? (set --url or HOOKYARD_URL)`,
        EXIT.unreachable,
      );
    }
    if (!res.headers.has(API_MARK_HEADER)) {
      const text = await res.text().catch(() => '');
      throw new CliError(
        `${this.opts.url} is not a Hookyard management API: GET /${path.split('?')[0]} answered ${res.status} without the ${API_MARK_HEADER} header` +
          ` (${describeBody(res.headers.get('content-type'), text)}); point --url or HOOKYARD_URL at a Hookyard ingress`,
        EXIT.unreachable,
      );
    }
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw fromWire(res.status, res.statusText, parsed, text);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) onEvent(event, data.join('\n'));
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw new CliError(`the event stream from ${this.opts.url} broke (${describeFetchFailure(err)})`, EXIT.unreachable);
    }
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const token = this.opts.token?.trim();
    if (!token) {
      throw new CliError('no API token: pass --token or set HOOKYARD_TOKEN (the embedded default prints one at start)', EXIT.usage);
    }
    const url = new URL(path, this.base).toString();
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? REQUEST_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new CliError(
        `cannot reach ${this.opts.url} (${describeFetchFailure(err)}); is 'hookyard serve' running there? (set --url or HOOKYARD_URL)`,
        EXIT.unreachable,
      );
    }
    if (!res.headers.has(API_MARK_HEADER)) {
      throw new CliError(
        `${this.opts.url} is not a Hookyard management API: ${method} /${path.split('?')[0]} answered ${res.status} without the ${API_MARK_HEADER} header` +
          ` (${describeBody(res.headers.get('content-type'), text)}); point --url or HOOKYARD_URL at a Hookyard ingress`,
        EXIT.unreachable,
      );
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      const snippet = oneLine(text).slice(0, 200);
      if (!res.ok) throw new CliError(`${res.status} ${res.statusText || 'error'}: ${snippet}`, EXIT.refused);
      throw new CliError(`the server answered ${res.status} with a body that is not JSON (is --url a Hookyard server?): ${snippet}`, EXIT.refused);
    }
    if (!res.ok) throw fromWire(res.status, res.statusText, parsed, text);
    return parsed as T;
  }
}

/** Turns a non-2xx answer into the one-line `<status> <kind>: <message>` error with its details. */
function fromWire(status: number, statusText: string, parsed: unknown, text: string): CliError {
  const e = (parsed as { error?: WireError | string } | undefined)?.error;
  if (e && typeof e === 'object') {
    const kind = typeof e.kind === 'string' ? e.kind : 'error';
    const message = typeof e.message === 'string' ? e.message : oneLine(text).slice(0, 200);
    const details = Array.isArray(e.details) ? e.details.map((d) => (typeof d === 'string' ? d : JSON.stringify(d))) : [];
    return new CliError(`${status} ${kind}: ${message}`, EXIT.refused, details, { status, kind, message });
  }
  // Answers outside the management API (door, health) carry `{"error": "<text>"}`.
  return new CliError(`${status} ${statusText || 'error'}: ${typeof e === 'string' ? e : oneLine(text).slice(0, 200)}`, EXIT.refused);
}

/** What came back, briefly: its content type and the start of its body. */
function describeBody(contentType: string | null, text: string): string {
  const snippet = oneLine(text).slice(0, 80);
  return `${contentType ?? 'no content type'}${snippet ? `: ${JSON.stringify(snippet)}` : ', empty body'}`;
}

function describeFetchFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer in ${REQUEST_TIMEOUT_MS / 1000} s`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** Collapses a multi-line text into one line. */
export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

/** Parses a JSON argument, naming the option on failure. */
export function parseJsonOption(option: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new CliError(`${option} is not valid JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

/** A JSON record from `--params JSON` or `--file PATH` (`-` reads stdin); exactly one of the two. */
export function readRecord(what: string, opts: { params?: string; file?: string }): unknown {
  if (opts.params !== undefined && opts.file !== undefined) throw new CliError('give either --params or --file, not both', EXIT.usage);
  if (opts.file !== undefined) {
    let raw: string;
    try {
      raw = readFileSync(opts.file === '-' ? 0 : opts.file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read --file ${opts.file}: ${(err as Error).message}`, EXIT.usage);
    }
    return parseJsonOption(`--file ${opts.file}`, raw);
  }
  if (opts.params !== undefined) return parseJsonOption('--params', opts.params);
  throw new CliError(`the ${what} is required: --params JSON or --file PATH (- for stdin)`, EXIT.usage);
}
