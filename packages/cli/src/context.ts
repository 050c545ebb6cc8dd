import type { ApiClient } from './client';

/** What a command needs from the global options. */
export interface CliContext {
  /** A client for `--url`/`HOOKYARD_URL` and `--token`/`HOOKYARD_TOKEN` (flags win); `timeoutMs` for a request that waits long. */
  client(opts?: { timeoutMs?: number }): ApiClient;
  /** The base URL (`--url`, `HOOKYARD_URL`, or the default), for the routes outside /api (the door). */
  url(): string;
  /** The connection flags as given on the command line (absent: not given, the environment's or the default is used). */
  given(): { url?: string; token?: string };
  /** True with `--json`. */
  json(): boolean;
  /** Prints `value` as JSON with `--json`, otherwise runs `human`. */
  emit(value: unknown, human: () => void): void;
}
