import { backoffMs, timeoutError, toHookyardError } from '@hookyard/core';
import type { HookyardError, Logger, ToolRetryPolicy } from '@hookyard/core';
import type { ToolCallContext, ToolRepo } from '@hookyard/tools';

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
  ctx: Omit<ToolCallContext, 'signal'>;
  /** Aborted when the attempt is interrupted (shutdown, lease lost). */
  signal: AbortSignal;
  timeoutMs: number;
  /** The tool's own policy; without one there is exactly one call. */
  retry?: ToolRetryPolicy;
  logger: Logger;
}

/** Rejects with the signal's reason once it aborts. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(toHookyardError(signal.reason));
    else signal.addEventListener('abort', () => reject(toHookyardError(signal.reason)), { once: true });
  });
}

/**
 * One call, bounded by `timeoutMs` (kind `timeout`). The race also covers a
 * tool that ignores its signal: the attempt moves on and the call's late
 * result is dropped.
 */
async function callOnce(repo: ToolRepo, call: ToolCall): Promise<unknown> {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(timeoutError(`tool '${call.tool}' did not finish within ${call.timeoutMs} ms`)), call.timeoutMs);
  const signal = AbortSignal.any([call.signal, timer.signal]);
  try {
    const pending = repo.exec(call.tool, call.args, { ...call.ctx, signal });
    pending.catch(() => undefined); // a call that loses the race must not be an unhandled rejection
    return await Promise.race([pending, whenAborted(signal)]);
  } finally {
    clearTimeout(handle);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(toHookyardError(signal.reason));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(toHookyardError(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Calls a started tool. After the hook acted the platform adds no attempts;
 * a tool that declares a retry policy gets exactly that policy: up to
 * `max_attempts` calls in all, for the kinds it names, with its own backoff.
 * Every call carries the same arguments and idempotency key.
 */
export async function callTool(repo: ToolRepo, call: ToolCall): Promise<{ result: unknown; calls: number }> {
  const max = Math.max(1, call.retry?.max_attempts ?? 1);
  for (let n = 1; ; n += 1) {
    let error: HookyardError;
    try {
      return { result: await callOnce(repo, call), calls: n };
    } catch (err) {
      error = toHookyardError(err);
    }
    const policy = call.retry;
    if (call.signal.aborted || !policy || n >= max || !policy.kinds.includes(error.kind)) throw error;
    const delay = backoffMs(n, policy.base_ms, policy.cap_ms);
    call.logger.warn({ run: call.ctx.runId, tool: call.tool, call: n, kind: error.kind, err: error.message, delayMs: delay }, 'tool call failed; its retry policy calls again');
    await sleep(delay, call.signal);
  }
}
