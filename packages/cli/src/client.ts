/** A failure the CLI reports in one line, with an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Exit codes: 0 ok, 1 the server refused or failed, 2 bad usage, 3 the server could not be reached. */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export interface ClientOptions {
  url: string;
  token: string | undefined;
}

/** A thin client of the management API. Errors quote the server's kind and message. */
export class ApiClient {
  constructor(private readonly opts: ClientOptions) {}

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.opts.token) {
      throw new CliError('no API token: pass --token or set HOOKYARD_TOKEN (the embedded default prints one at start)', EXIT.usage);
    }
    let res: Response;
    const url = new URL(path, this.opts.url.endsWith('/') ? this.opts.url : `${this.opts.url}/`).toString();
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.opts.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new CliError(`cannot reach ${this.opts.url} (${cause}); is 'hookyard serve' running? (--url or HOOKYARD_URL)`, EXIT.unreachable);
    }
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      if (!res.ok) throw new CliError(`${res.status} ${res.statusText}: ${text.slice(0, 200)}`, EXIT.refused);
      throw new CliError(`the server answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, EXIT.refused);
    }
    if (!res.ok) {
      const e = (parsed as { error?: { kind?: string; message?: string; details?: string[] } | string })?.error;
      if (e && typeof e === 'object') {
        throw new CliError(`${res.status} ${e.kind ?? 'error'}: ${e.message ?? text}`, EXIT.refused, e.details ?? []);
      }
      throw new CliError(`${res.status}: ${typeof e === 'string' ? e : text.slice(0, 200)}`, EXIT.refused);
    }
    return parsed as T;
  }
}

/** Parses a JSON argument, naming the option on failure. */
export function parseJsonOption(option: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new CliError(`${option} is not valid JSON: ${(err as Error).message}`, EXIT.usage);
  }
}
