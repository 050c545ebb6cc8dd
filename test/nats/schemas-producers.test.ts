/**
 * The messages Hookyard actually sends fit the schemas it documents: the run
 * summary the executor and scheduler announce (summarizeRun of @hookyard/bus), and the hooks_run_failed
 * platform event payload.
 */
import { validateMessage, type Run } from '@hookyard/core';
import { acceptedSummaries, summarizeRun } from '@hookyard/bus';
import { createMemoryStores, createRedisStores } from '@hookyard/store';
import { deleteRedisKeys, requireRedis, uniquePrefix } from '../support/services';

function run(over: Partial<Run>): Run {
  return {
    id: 'r-abc',
    hook: 'greet',
    topic: 'demo',
    status: 'succeeded',
    payload: {},
    headers: null,
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
    door: 'http',
    verified: false,
    resumable: false,
    interaction: null,
    parked_on: [],
    replay_of: null,
    trigger_link: null,
    traceparent: null,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:01.000Z',
    started_at: '2025-01-01T00:00:00.500Z',
    finished_at: '2025-01-01T00:00:01.000Z',
    history: [],
    ...over,
  };
}

const redisPrefix = uniquePrefix('schemas');
afterAll(() => deleteRedisKeys(redisPrefix));

describe('produced messages fit the documented schemas', () => {
  it.each([
    ['succeeded', run({})],
    ['skipped, never started', run({ status: 'skipped', started_at: null, acted: '' })],
    ['failed', run({ status: 'failed', attempts: 5, error: { kind: 'unavailable', message: 'down' } })],
  ])('run summary of a %s run', (_what, r) => {
    expect(validateMessage('run_summary', summarizeRun(r))).toEqual({ ok: true });
  });

  it.each([
    ['started', run({ status: 'running', finished_at: null, result: null, lease: { owner: 'w', until: 0, token: 1 } })],
    ['parked', run({ status: 'parked', finished_at: null, result: null, interaction: 'i-1', parked_on: ['i-1'] })],
    ['retry_scheduled', run({ status: 'retry_wait', finished_at: null, due_at: '2025-01-01T00:00:02.000Z', error: { kind: 'timeout', message: 'slow' } })],
    ['retried', run({ status: 'pending', attempts: 0, finished_at: null, started_at: null })],
    ['discarded', run({ status: 'discarded' })],
    ['woken', run({ status: 'pending', finished_at: null })],
  ] as const)('run summary of a %s event', (event, r) => {
    const s = summarizeRun(r, event);
    expect(validateMessage('run_summary', s)).toEqual({ ok: true });
    expect(s).toMatchObject({ event, status: r.status, duration_ms: null, due_at: event === 'retry_scheduled' ? r.due_at : null });
  });

  it("the door's accepted summaries", () => {
    const [s] = acceptedSummaries('demo', [{ id: 'r-1', hook: 'greet' }], Date.parse('2025-01-01T00:00:00Z'));
    expect(validateMessage('run_summary', s)).toEqual({ ok: true });
  });

  it.each([
    ['memory', async () => createMemoryStores()],
    ['redis', async () => createRedisStores({ url: await requireRedis(), prefix: redisPrefix, partitions: 2 })],
  ])('hooks_run_failed payload, as the %s store keeps it with the fail transition', async (_kind, make) => {
    const stores = await make();
    try {
      const at = new Date(0).toISOString();
      await stores.hooks.putHook({ name: 'alert', topic: 'hooks_run_failed', tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at });
      await stores.hooks.putHook({ name: 'h', topic: 'orders', tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at });
      const [kept] = await stores.runs.keepEvent({ topic: 'orders', payload: {}, now: 1_000, dispatchGraceMs: 0 });
      const c = await stores.runs.claim(kept!.id, 'w', 1_000, 1_000);
      await stores.runs.fail(kept!.id, c!.token, { kind: 'bad_input', message: 'condition raised' }, 1_001);
      const [alert] = (await stores.runs.list({ topic: 'hooks_run_failed' }, 10)).runs;
      expect(validateMessage('run_failed_event', alert!.payload)).toEqual({ ok: true });
    } finally {
      await stores.close();
    }
  });
});
