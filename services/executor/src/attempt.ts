import { performance } from 'node:perf_hooks';
import { cancelled, toHookyardError } from '@hookyard/core';
import type { ApprovalPolicy, Clock, Hook, HookyardError, Logger, Run, SubjectKey } from '@hookyard/core';
import type { ApprovalDecision, ToolPolicy } from '@hookyard/tools';
import type { PlannedClaim, RunStore } from '@hookyard/store';

/**
 * A plan made before the claim from the dispatch message's hint: the claim
 * applies its first write (`claim`) in the same store step, and an attempt
 * whose start was applied goes straight to its tool with what was planned.
 */
export interface Preplan {
  hook: Hook;
  /** The payload the plan was made from (the claim applies the plan only if the run keeps it). */
  payload: unknown;
  claim: PlannedClaim;
  /** For a start: the call the attempt makes. */
  call?: { kwargs: Record<string, unknown>; extras: Record<string, unknown>; subject: SubjectKey | null; decision: ApprovalDecision; policy: ToolPolicy };
}

/** Why an attempt stopped before it could write its outcome. */
export type InterruptReason = 'shutdown' | 'lease lost';

/**
 * What a tool call needs from the attempt it belongs to: whether it was
 * interrupted, and one hook to abort the call in progress when it is. One
 * linked listener, not an AbortSignal per attempt: a signal is created per
 * tool call only (see tool-call.ts).
 */
export interface Interruptible {
  /** The cancellation error once interrupted, else undefined. */
  readonly interruptError: HookyardError | undefined;
  /** Links the call in progress; `onInterrupt` runs at most once. Replaces any earlier link. */
  link(onInterrupt: (err: HookyardError) => void): void;
  unlink(): void;
}

/**
 * One claimed attempt: its fencing token, its lease (renewed by the
 * executor's LeaseKeeper while it works), and the interruption that stops the
 * work when the lease is lost or the process shuts down. Once interrupted it
 * writes nothing more.
 */
export class Attempt implements Interruptible {
  /** performance.now() of the last lease write sent (the claim, then each renewal). */
  leaseWrittenAt = performance.now();
  /** A renewal is in flight: the keeper never sends two at once for one attempt. */
  renewing = false;
  /** Set when a write was refused for a stale token: another attempt owns the run. */
  superseded = false;
  /**
   * When the lease lapses as the store last recorded it (the claim's, then
   * each renewal that got through): outcome writes are retried until then.
   */
  leaseUntil: number;
  /** The deployment's approval policy, read beside the claim (one round trip fewer before the tool starts). */
  policy: Promise<ApprovalPolicy> | undefined;
  /** The plan made before the claim whose start the claim applied (absent: the attempt plans after its claim). */
  planned: Preplan | undefined;
  /** The revision of the run's hook the claim answered (null: unknown, the hook is read). */
  hookRevision: string | null = null;
  /** Set once the attempt was interrupted. */
  interruptReason: InterruptReason | undefined;
  interruptError: HookyardError | undefined;
  private onInterrupt: ((err: HookyardError) => void) | undefined;
  private interruptedPromise: Promise<InterruptReason> | undefined;
  private resolveInterrupted: ((reason: InterruptReason) => void) | undefined;

  constructor(
    readonly run: Run,
    readonly token: number,
    private readonly runs: RunStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Waits between two tries of an outcome write (injected so tests move a manual clock instead). */
    private readonly sleep: (ms: number) => Promise<void> = realSleep,
  ) {
    this.leaseUntil = run.lease?.until ?? clock.now();
  }

  /** Resolves when the attempt is interrupted (created on first use). */
  get interrupted(): Promise<InterruptReason> {
    if (!this.interruptedPromise) {
      this.interruptedPromise = this.interruptReason ? Promise.resolve(this.interruptReason) : new Promise((resolve) => (this.resolveInterrupted = resolve));
    }
    return this.interruptedPromise;
  }

  link(onInterrupt: (err: HookyardError) => void): void {
    this.onInterrupt = onInterrupt;
  }

  unlink(): void {
    this.onInterrupt = undefined;
  }

  interrupt(reason: InterruptReason): void {
    if (this.interruptReason) return;
    this.interruptReason = reason;
    this.interruptError = cancelled(`attempt interrupted: ${reason}`);
    const linked = this.onInterrupt;
    this.onInterrupt = undefined;
    linked?.(this.interruptError);
    this.resolveInterrupted?.(reason);
  }

  /** One lease renewal (the LeaseKeeper calls it; never two at once). */
  async renew(leaseMs: number): Promise<void> {
    if (this.interruptReason) return;
    this.renewing = true;
    this.leaseWrittenAt = performance.now();
    const sentAt = this.clock.now();
    try {
      await this.runs.renew(this.run.id, this.token, leaseMs, sentAt);
      this.leaseUntil = Math.max(this.leaseUntil, sentAt + leaseMs);
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind === 'conflict') {
        this.logger.warn(
          { run: this.run.id, hook: this.run.hook, attempt: this.run.attempts, err: e.message },
          'attempt superseded: lease taken over, work stopped',
        );
        this.superseded = true;
        this.interrupt('lease lost');
      } else {
        // A store blip: the next renewal may get through before the lease lapses.
        this.logger.warn({ run: this.run.id, kind: e.kind, err: e.message }, 'lease renewal failed; will try again');
      }
    } finally {
      this.renewing = false;
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

  /**
   * An end-of-attempt write (complete, fail, schedule_retry, release), which
   * is idempotent per token: one that fails with a retryable kind (a Redis
   * blip) is sent again, with backoff from 100 ms doubling to 2 s, while the
   * lease holds (`leaseUntil`, moved on by every renewal that gets through),
   * and then for one more lease: a fenced write landing late is still right
   * until the lease sweep took the run over. A refusal (`conflict`) after a
   * failed try means the sweep took over first: the write is lost, and the
   * run is told (noteLostOutcome) so its error names the lost `outcome`
   * instead of only "lease lapsed". Gives up with the last error. (Also
   * after a shutdown interrupt: the hand-back is such a write.)
   */
  async writeOutcome<T>(outcome: string, leaseMs: number, fn: (token: number, now: number) => Promise<T>): Promise<T> {
    let delay = OUTCOME_RETRY_FIRST_MS;
    let firstError: HookyardError | undefined;
    for (;;) {
      try {
        return await this.write(fn);
      } catch (err) {
        const e = toHookyardError(err);
        if (e.kind === 'conflict') {
          if (firstError) await this.noteLost(outcome, firstError);
          throw e;
        }
        firstError ??= e;
        if (!e.retryable || this.clock.now() + delay > this.leaseUntil + leaseMs) throw e;
        const where = { run: this.run.id, hook: this.run.hook, attempt: this.run.attempts, kind: e.kind, err: e.message, delayMs: delay };
        this.logger.warn({ ...where, lease_until: new Date(this.leaseUntil).toISOString() }, `outcome write (${outcome}) failed; trying again`);
        await this.sleep(delay);
        delay = Math.min(delay * 2, OUTCOME_RETRY_CAP_MS);
      }
    }
  }

  private async noteLost(outcome: string, cause: HookyardError): Promise<void> {
    const detail = `attempt ${this.run.attempts} ended ${outcome} but could not write it before its lease was taken over (${cause.message})`;
    try {
      await this.runs.noteLostOutcome(this.run.id, this.token, detail, this.clock.now());
      this.logger.error(
        { run: this.run.id, hook: this.run.hook, attempt: this.run.attempts, err: cause.message },
        `outcome (${outcome}) lost: the run was taken over first; its error says so`,
      );
    } catch (err) {
      const e = toHookyardError(err);
      this.logger.error(
        { run: this.run.id, hook: this.run.hook, attempt: this.run.attempts, err: cause.message, note_err: e.message },
        `outcome (${outcome}) lost, and the run could not be told`,
      );
    }
  }
}

export const OUTCOME_RETRY_FIRST_MS = 100;
export const OUTCOME_RETRY_CAP_MS = 2000;

/** A timer's wait: the default between two tries of a store write. */
export function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Keeps the leases of the attempts in flight with one timer per executor
 * instead of one per attempt. It ticks every leaseMs/6 and renews each
 * attempt whose last lease write is at least leaseMs/6 old, so no lease goes
 * longer than about leaseMs/3 without a renewal (two can miss before it
 * lapses), and an attempt that finishes within leaseMs/6 (5 s by default)
 * never renews at all. The timer runs only while attempts are in flight.
 */
export class LeaseKeeper {
  private readonly attempts = new Set<Attempt>();
  private timer: NodeJS.Timeout | undefined;
  private readonly everyMs: number;

  constructor(private readonly leaseMs: number) {
    this.everyMs = Math.max(5, Math.floor(leaseMs / 6));
  }

  add(a: Attempt): void {
    this.attempts.add(a);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.everyMs);
      this.timer.unref();
    }
  }

  delete(a: Attempt): void {
    this.attempts.delete(a);
    if (this.attempts.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    // Renew what is due by the next tick too, so timer jitter never stretches a gap past leaseMs/3.
    const dueBefore = performance.now() - this.everyMs;
    for (const a of this.attempts) {
      if (!a.renewing && !a.interruptReason && a.leaseWrittenAt <= dueBefore) void a.renew(this.leaseMs);
    }
  }
}
