import { backoffMs, clearNotSent, timeoutError, toHookyardError } from '@hookyard/core';
import type { HookyardError, Logger, ToolRetryPolicy } from '@hookyard/core';
import { SecretCut, type ToolCallContext, type ToolRepo } from '@hookyard/tools';
import type { Interruptible } from './attempt';
import { endToolCall, startToolCall, tracingOn, withSpan } from './tracing';

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
  ctx: Omit<ToolCallContext, 'signal' | 'timeoutMs'>;
  /** The attempt: interrupted on shutdown or a lost lease, which aborts the call in progress. */
  interrupt: Interruptible;
  /** The call's time bound (read live by the caller); handed to the tool as `ctx.timeoutMs`. */
  timeoutMs: number;
  /** The tool's own policy; without one there is exactly one call. */
  retry?: ToolRetryPolicy;
  logger: Logger;
}

/**
 * One call, bounded by `timeoutMs` (kind `timeout`). One controller per call,
 * aborted by its timer or by the attempt's interruption (no AbortSignal.any,
 * no listener on a second signal). The race also covers a tool that ignores
 * its signal: the attempt moves on and the call's late result is dropped.
 */
async function callOnce(repo: ToolRepo, call: ToolCall, n: number, cut: SecretCut): Promise<unknown> {
  const { interrupt } = call;
  if (interrupt.interruptError) throw interrupt.interruptError;
  const controller = new AbortController();
  const signal = controller.signal;
  let stop!: (err: HookyardError) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = (err) => {
      if (signal.aborted) return;
      controller.abort(err);
      reject(err);
    };
  });
  const handle = setTimeout(() => stop(timeoutError(`tool '${call.tool}' did not finish within ${call.timeoutMs} ms`)), call.timeoutMs);
  interrupt.link(stop);
  // Tracing on: the call runs inside its own span, whose traceparent the providers send on.
  const span = tracingOn() ? startToolCall(call.tool, n) : undefined;
  let failed: unknown;
  // The tool tells each secret it uses; its reply, result and error are cut before anyone sees them.
  const { onHttp } = call.ctx;
  const ctx: ToolCallContext = {
    ...call.ctx,
    signal,
    timeoutMs: call.timeoutMs,
    onSecret: cut.add,
    onHttp: onHttp && ((x) => onHttp(cut.http(x))),
  };
  try {
    const exec = () => repo.exec(call.tool, call.args, ctx);
    const pending = span ? withSpan(span, exec) : exec();
    pending.catch(() => undefined); // a call that loses the race must not be an unhandled rejection
    return cut.value(await Promise.race([pending, stopped]));
  } catch (err) {
    failed = cut.error(toHookyardError(err));
    throw failed;
  } finally {
    clearTimeout(handle);
    interrupt.unlink();
    if (span) endToolCall(span, failed);
  }
}

/** Waits `ms` between two calls of a tool's retry policy; an interruption ends the wait. */
function sleep(ms: number, interrupt: Interruptible): Promise<void> {
  return new Promise((resolve, reject) => {
    if (interrupt.interruptError) return reject(interrupt.interruptError);
    const t = setTimeout(() => {
      interrupt.unlink();
      resolve();
    }, ms);
    interrupt.link((err) => {
      clearTimeout(t);
      reject(err);
    });
  });
}

/**
 * Calls a started tool. After the hook acted the platform adds no attempts;
 * a tool that declares a retry policy gets exactly that policy: up to
 * `max_attempts` calls in all, for the kinds it names, with its own backoff.
 * Every call carries the same arguments and idempotency key.
 *
 * Every tool call of the executor goes through here, so this is where the
 * secrets a call used are cut (SecretCut) from what a run keeps of it: the
 * result, the error and the HTTP reply (`ctx.onHttp`). Readers see all three.
 */
export async function callTool(repo: ToolRepo, call: ToolCall): Promise<{ result: unknown; calls: number }> {
  const max = Math.max(1, call.retry?.max_attempts ?? 1);
  // One cut for all calls of the policy: a later call's reply may echo an earlier call's secret.
  const cut = new SecretCut();
  // Whether any call of the policy may have left: the error says "not sent" only if none did.
  let sent = false;
  for (let n = 1; ; n += 1) {
    let error: HookyardError;
    try {
      return { result: await callOnce(repo, call, n, cut), calls: n };
    } catch (err) {
      error = toHookyardError(err);
      if (!error.notSent) sent = true;
      else if (sent) error = clearNotSent(error);
    }
    const policy = call.retry;
    if (call.interrupt.interruptError || !policy || n >= max || !policy.kinds.includes(error.kind)) throw error;
    const delay = backoffMs(n, policy.base_ms, policy.cap_ms);
    call.logger.warn(
      { run: call.ctx.runId, tool: call.tool, call: n, kind: error.kind, err: error.message, delayMs: delay },
      'tool call failed; its retry policy calls again',
    );
    await sleep(delay, call.interrupt);
  }
}
