import { silentLogger } from '@hookyard/core';
import type { ToolCallContext } from '../../src/types';

/** A call context for direct tool calls in tests. */
export function testContext(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    runId: 'run-test',
    hook: 'hook-test',
    attempt: 1,
    idempotencyKey: 'idem-123',
    extras: { 'tai42/idempotency_key': 'idem-123' },
    signal: new AbortController().signal,
    logger: silentLogger(),
    ...overrides,
  };
}
