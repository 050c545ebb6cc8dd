import { badInput, type Logger } from '@hookyard/core';
import { JsSandbox, type SandboxResult } from './js-sandbox';
import type { LocalTool } from './local-repo';

export interface JsExecutionOptions {
  /** Time bound of one snippet when the call context carries none (default 1000 ms). */
  timeoutMs?: number;
  /**
   * Longest time bound of one snippet whatever the call's (default: none).
   * Snippets take turns in one sandbox thread, so one long snippet delays the rest.
   */
  maxTimeoutMs?: number;
  /** Memory the snippet's runtime may allocate (default 32 MiB). */
  memoryBytes?: number;
  /** Longest JSON of a result (default 1 MiB). */
  maxResultBytes?: number;
  /** Past the time bound, how long before the sandbox thread is terminated outright (default 1000 ms). */
  hardKillGraceMs?: number;
  logger?: Logger;
}

export type JsExecutionResult = SandboxResult;

const SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'JavaScript; the value of its last expression is the result. `input` holds the input.' },
    input: { description: 'Bound to `input`; when absent, the other arguments are.' },
  },
  required: ['code'],
} as const;

/** A js_execution tool together with its sandbox, which the owner may close. */
export interface JsExecutionTool extends LocalTool {
  close(): Promise<void>;
}

/**
 * `js_execution`: a snippet in a QuickJS sandbox (WebAssembly, in a worker
 * thread; no Node APIs, no file system, no network) with a memory limit and a
 * time limit. The time limit is the call's (`ctx.timeoutMs`, the live tool
 * timeout the executor hands in), at most `maxTimeoutMs`. What the snippet
 * does wrong (an exception, out of memory) comes back as `{ok: false, error}`;
 * success is `{ok: true, value}`; a snippet cut off at its time limit is a
 * `timeout` error, never a result.
 */
export function jsExecutionTool(options: JsExecutionOptions = {}): JsExecutionTool {
  const timeoutMs = options.timeoutMs ?? 1000;
  const maxTimeoutMs = options.maxTimeoutMs ?? Infinity;
  const memoryBytes = options.memoryBytes ?? 32 * 1024 * 1024;
  const sandbox = new JsSandbox(
    {
      timeoutMs: Math.min(timeoutMs, maxTimeoutMs),
      memoryBytes,
      maxResultBytes: options.maxResultBytes ?? 1024 * 1024,
      hardKillGraceMs: options.hardKillGraceMs,
    },
    options.logger,
  );
  return {
    info: {
      name: 'js_execution',
      description: `Runs a JavaScript snippet in a sandbox (the tool timeout${Number.isFinite(maxTimeoutMs) ? `, at most ${maxTimeoutMs} ms` : ''}; ${Math.round(memoryBytes / 1048576)} MiB); returns {ok, value} or {ok: false, error}.`,
      parameters: SCHEMA,
      provider: 'local',
    },
    async run(args, ctx) {
      const { code, ...rest } = args;
      if (typeof code !== 'string') throw badInput(`js_execution: code must be a string, got ${JSON.stringify(code)}`);
      const input = Object.hasOwn(args, 'input') ? args.input : rest;
      return sandbox.run(code, input, ctx.signal, Math.min(ctx.timeoutMs ?? timeoutMs, maxTimeoutMs));
    },
    close: () => sandbox.close(),
  };
}
