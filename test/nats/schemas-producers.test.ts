/**
 * The messages Hookyard actually sends fit the schemas it documents: the run
 * summary the executor and scheduler announce (summarizeRun of @hookyard/bus), and the hooks_run_failed
 * platform event payload.
 */
import { ManualClock, createMetrics, silentLogger, validateMessage, type Run } from '@hookyard/core';
import { createRunReporter, summarizeRun } from '@hookyard/bus';

function run(over: Partial<Run>): Run {
  return {
    id: 'r-abc',
    hook: 'greet',
    topic: 'demo',
    status: 'succeeded',
    payload: {},
    attempts: 1,
    acted: 'start',
    acted_ids: [],
    claim_intent: '',
    error: null,
    result: { ok: true },
    input: {},
    lease: null,
    due_at: null,
    delivery_id: null,
    resumable: false,
    interaction: null,
    parked_on: [],
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:01.000Z',
    started_at: '2025-01-01T00:00:00.500Z',
    finished_at: '2025-01-01T00:00:01.000Z',
    history: [],
    ...over,
  };
}

describe('produced messages fit the documented schemas', () => {
  it.each([
    ['succeeded', run({})],
    ['skipped, never started', run({ status: 'skipped', started_at: null, acted: '' })],
    ['failed', run({ status: 'failed', attempts: 5, error: { kind: 'unavailable', message: 'down' } })],
  ])('run summary of a %s run', (_what, r) => {
    expect(validateMessage('run_summary', summarizeRun(r))).toEqual({ ok: true });
  });

  it('hooks_run_failed payload', async () => {
    const payloads: unknown[] = [];
    const reporter = createRunReporter({
      runs: {
        keepEvent: async (input) => {
          payloads.push(input.payload);
          return [];
        },
      },
      bus: { publish: async () => undefined },
      metrics: createMetrics({ defaultMetrics: false }),
      logger: silentLogger(),
      clock: new ManualClock(),
      dispatchGraceMs: 1000,
    });
    await reporter.finished(run({ status: 'failed', acted: '', error: { kind: 'bad_input', message: 'condition raised' } }));
    expect(payloads).toHaveLength(1);
    expect(validateMessage('run_failed_event', payloads[0])).toEqual({ ok: true });
  });
});
