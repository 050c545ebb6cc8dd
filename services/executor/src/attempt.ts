import { cancelled, toHookyardError } from '@hookyard/core';
import type { Clock, Logger, Run } from '@hookyard/core';
import type { RunStore } from '@hookyard/store';

/** Why an attempt stopped before it could write its outcome. */
export type InterruptReason = 'shutdown' | 'lease lost';

/**
 * One claimed attempt: its fencing token, the lease kept alive while it works,
 * and the signal that stops the work when the lease is lost or the process
 * shuts down. Once interrupted it writes nothing more.
 */
export class Attempt {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();
  /** Set when a write was refused for a stale token: another attempt owns the run. */
  superseded = false;
  /** Set once the attempt was interrupted. */
  interruptReason: InterruptReason | undefined;
  /** Resolves when the attempt is interrupted; the handler races its work against it. */
  readonly interrupted: Promise<InterruptReason>;
  private resolveInterrupted!: (reason: InterruptReason) => void;

  constructor(
    readonly run: Run,
    readonly token: number,
    private readonly runs: RunStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.interrupted = new Promise((resolve) => (this.resolveInterrupted = resolve));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  interrupt(reason: InterruptReason): void {
    if (this.interruptReason) return;
    this.interruptReason = reason;
    this.stopLease();
    this.controller.abort(cancelled(`attempt interrupted: ${reason}`));
    this.resolveInterrupted(reason);
  }

  /** Renews the lease every third of its length, so two renewals can miss before it lapses. */
  keepLease(leaseMs: number): void {
    const every = Math.max(10, Math.floor(leaseMs / 3));
    this.timer = setInterval(() => {
      this.renewing = this.renewing.then(() => this.renew(leaseMs));
    }, every);
    this.timer.unref();
  }

  stopLease(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(leaseMs: number): Promise<void> {
    if (this.signal.aborted) return;
    try {
      await this.runs.renew(this.run.id, this.token, leaseMs, this.clock.now());
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind === 'conflict') {
        this.logger.warn({ run: this.run.id, hook: this.run.hook, attempt: this.run.attempts, err: e.message }, 'attempt superseded: lease taken over, work stopped');
        this.superseded = true;
        this.interrupt('lease lost');
      } else {
        // A store blip: the next renewal may get through before the lease lapses.
        this.logger.warn({ run: this.run.id, kind: e.kind, err: e.message }, 'lease renewal failed; will try again');
      }
    }
  }

  /**
   * A write of this attempt. A stale-token `conflict` marks it superseded and
   * is rethrown, so the caller stops without overwriting the newer attempt.
   */
  async write<T>(fn: (token: number, now: number) => Promise<T>): Promise<T> {
    try {
      return await fn(this.token, this.clock.now());
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind === 'conflict') this.superseded = true;
      throw e;
    }
  }
}
