import { badInput, type Logger } from '@hookyard/core';
import { newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule } from 'quickjs-emscripten';
import type { LocalTool } from './local-repo';

export interface JsExecutionOptions {
  /**
   * Time bound of one snippet (default 1000 ms). A snippet runs on the
   * caller's thread, so this stays short: a long one would stall lease renewals.
   */
  timeoutMs?: number;
  /** Memory the snippet's runtime may allocate (default 32 MiB). */
  memoryBytes?: number;
  /** Longest JSON of a result (default 1 MiB). */
  maxResultBytes?: number;
  logger?: Logger;
}

export type JsExecutionResult = { ok: true; value: unknown } | { ok: false; error: string };

const SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'JavaScript; the value of its last expression is the result. `input` holds the input.' },
    input: { description: 'Bound to `input`; when absent, the other arguments are.' },
  },
  required: ['code'],
} as const;

const RESULT_GLOBAL = '__hookyard_result';

/**
 * `js_execution`: a snippet in a QuickJS sandbox (WebAssembly; no Node APIs,
 * no file system, no network). Each call gets a fresh runtime with a memory
 * limit and an interrupt handler that stops it at the deadline. Whatever the
 * snippet does wrong comes back as `{ok: false, error}`, never as a crash.
 */
export function jsExecutionTool(options: JsExecutionOptions = {}): LocalTool {
  const timeoutMs = options.timeoutMs ?? 1000;
  const memoryBytes = options.memoryBytes ?? 32 * 1024 * 1024;
  const maxResult = options.maxResultBytes ?? 1024 * 1024;
  // One wasm module per tool instance; replaced if a runtime ever fails to dispose cleanly.
  let module: Promise<QuickJSWASMModule> | null = null;
  const getModule = () => (module ??= newQuickJSWASMModule());

  function describe(vm: QuickJSContext, handle: QuickJSHandle): string {
    try {
      const e: unknown = vm.dump(handle);
      if (e && typeof e === 'object') {
        const { name, message } = e as { name?: unknown; message?: unknown };
        if (typeof message === 'string') return typeof name === 'string' ? `${name}: ${message}` : message;
      }
      return typeof e === 'string' ? e : JSON.stringify(e) ?? String(e);
    } catch {
      return 'the snippet failed and its error could not be read';
    }
  }

  async function execute(code: string, input: unknown, signal: AbortSignal): Promise<JsExecutionResult> {
    const qjs = await getModule();
    const runtime = qjs.newRuntime();
    runtime.setMemoryLimit(memoryBytes);
    runtime.setMaxStackSize(512 * 1024);
    const deadline = Date.now() + timeoutMs;
    let interrupted = false;
    runtime.setInterruptHandler(() => {
      if (Date.now() > deadline || signal.aborted) interrupted = true;
      return interrupted;
    });
    const vm = runtime.newContext();
    try {
      const step = (source: string, filename: string): { handle?: QuickJSHandle; error?: string } => {
        const r = vm.evalCode(source, filename);
        if (r.error) {
          const msg = interrupted ? `interrupted: the snippet ran past ${timeoutMs} ms` : describe(vm, r.error);
          r.error.dispose();
          return { error: msg };
        }
        return { handle: r.value };
      };
      const setup = step(`globalThis.input = JSON.parse(${JSON.stringify(JSON.stringify(input ?? null))});`, 'input.js');
      if (setup.error !== undefined) return { ok: false, error: `input could not be loaded: ${setup.error}` };
      setup.handle?.dispose();

      const ran = step(code, 'snippet.js');
      if (ran.error !== undefined) return { ok: false, error: ran.error };
      vm.setProp(vm.global, RESULT_GLOBAL, ran.handle!);
      ran.handle!.dispose();

      const out = step(`JSON.stringify(globalThis.${RESULT_GLOBAL})`, 'result.js');
      if (out.error !== undefined) return { ok: false, error: `the result is not JSON: ${out.error}` };
      const handle = out.handle!;
      const json = vm.typeof(handle) === 'string' ? vm.getString(handle) : undefined;
      handle.dispose();
      if (json === undefined) return { ok: true, value: null };
      if (json.length > maxResult) return { ok: false, error: `the result is ${json.length} characters of JSON; the limit is ${maxResult}` };
      return { ok: true, value: JSON.parse(json) as unknown };
    } finally {
      try {
        vm.dispose();
        runtime.dispose();
      } catch (err) {
        // A runtime that cannot be torn down (e.g. after running out of memory) may leave the module unusable: start a fresh one.
        options.logger?.warn({ err }, 'js_execution: sandbox did not dispose cleanly; replacing the wasm module');
        module = null;
      }
    }
  }

  return {
    info: {
      name: 'js_execution',
      description: `Runs a JavaScript snippet in a sandbox (${timeoutMs} ms, ${Math.round(memoryBytes / 1048576)} MiB); returns {ok, value} or {ok: false, error}.`,
      parameters: SCHEMA as unknown as Record<string, unknown>,
      provider: 'local',
    },
    async run(args, ctx) {
      const { code, ...rest } = args;
      if (typeof code !== 'string') throw badInput(`js_execution: code must be a string, got ${JSON.stringify(code)}`);
      const input = Object.hasOwn(args, 'input') ? args.input : rest;
      return execute(code, input, ctx.signal);
    },
  };
}
