import { badInput } from '@hookyard/core';
import type { InteractionKind, SubjectKey } from '@hookyard/core';
import type { LocalTool } from './local-repo';

/** Longest a `wait` may wait: 30 days. */
export const WAIT_MAX_SECONDS = 30 * 24 * 3600;

/** What a `wait` that nobody resumed does when it expires: fail the run (kind timeout) or end it succeeded. */
export const WAIT_ON_TIMEOUT = ['fail', 'succeed'] as const;
export type WaitOnTimeout = (typeof WAIT_ON_TIMEOUT)[number];

/**
 * A tool's answer that asks the executor to park its run on a new
 * interaction instead of ending it. Only the executor acts on it (it is a
 * class instance, never a JSON result): the `wait` tool answers one, and the
 * approval gate may build one for an `approve` decision.
 */
export class ParkRequest {
  constructor(
    readonly kind: InteractionKind,
    /** Milliseconds from now until the interaction expires. */
    readonly timeoutMs: number,
    /** What expiry means (`wait`: fail | succeed; `approval`: deny | allow). */
    readonly onTimeout: string,
    readonly extra: {
      rule?: string | null;
      /** approval: the rule's message, kept on the interaction for the approver. */
      message?: string | null;
      policyVersion?: number | null;
      answerHooks?: string[];
      /** approval: `caller` when the agent's own user may answer it (MCP elicitation). */
      approver?: 'caller' | null;
      subject?: SubjectKey | null;
    } = {},
  ) {}
}

export function isParkRequest(value: unknown): value is ParkRequest {
  return value instanceof ParkRequest;
}

/**
 * `wait {timeout_seconds, on_timeout?}`: parks its run until a later event's
 * `resume_expr` resumes it (its result is the resume payload), a `cancel_expr`
 * or an operator cancels it (the run ends `cancelled`), or it expires
 * (`on_timeout`: `fail`, the default, holds the run failed with kind
 * `timeout`; `succeed` ends it succeeded with `{"timed_out": true}`). Calling it
 * again after a crash just parks again, so it declares crash-resume.
 */
export const waitTool: LocalTool = {
  info: {
    name: 'wait',
    description:
      'Parks the run until a later event resumes it (the result is the resume payload), it is cancelled, or timeout_seconds pass (on_timeout: fail, the default, or succeed).',
    parameters: {
      type: 'object',
      required: ['timeout_seconds'],
      additionalProperties: false,
      properties: {
        timeout_seconds: { type: 'integer', minimum: 1, maximum: WAIT_MAX_SECONDS, description: 'How long the run waits before it expires' },
        on_timeout: {
          type: 'string',
          enum: [...WAIT_ON_TIMEOUT],
          default: 'fail',
          description: 'fail: the run is held failed (kind timeout); succeed: it ends succeeded with {"timed_out": true}',
        },
      },
    },
    provider: 'local',
    crashResumable: true,
  },
  async run(args) {
    const seconds = args.timeout_seconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > WAIT_MAX_SECONDS) {
      throw badInput(`wait: timeout_seconds must be a whole number from 1 to ${WAIT_MAX_SECONDS}, got ${JSON.stringify(seconds)}`);
    }
    const onTimeout = args.on_timeout ?? 'fail';
    if (!(WAIT_ON_TIMEOUT as readonly unknown[]).includes(onTimeout)) {
      throw badInput(`wait: on_timeout must be one of ${WAIT_ON_TIMEOUT.join(', ')}, got ${JSON.stringify(onTimeout)}`);
    }
    const extra = Object.keys(args).filter((k) => k !== 'timeout_seconds' && k !== 'on_timeout');
    if (extra.length) throw badInput(`wait: unknown argument ${extra.map((k) => `'${k}'`).join(', ')} (known: timeout_seconds, on_timeout)`);
    return new ParkRequest('wait', seconds * 1000, onTimeout as string);
  },
};
