/**
 * GET /api/events: run summaries as server-sent events, authenticated,
 * filtered by hook/topic/status, each stream's listener released when the
 * client goes away.
 */
import { createRunEventHub, type RunEventFeed, type RunEventHub, type RunSummary } from '@hookyard/bus';
import { hook, startHarness, TOKENS, type Harness } from './support/harness';

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  run_id: 'run-1',
  event: 'finished',
  at: '2024-01-01T00:00:01.000Z',
  hook: 'greet',
  topic: 'demo',
  status: 'succeeded',
  attempts: 1,
  error_kind: null,
  error_message: null,
  created_at: '2024-01-01T00:00:00.000Z',
  finished_at: '2024-01-01T00:00:01.000Z',
  due_at: null,
  duration_ms: 1000,
  ...over,
});

/** Opens a stream and collects its `run` events; `until` resolves once `n` arrived. */
async function openStream(url: string, path = '/api/events') {
  const controller = new AbortController();
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${TOKENS.reader}` }, signal: controller.signal });
  const events: RunSummary[] = [];
  let text = '';
  let open = false;
  const waiters: Array<() => void> = [];
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += value;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (frame.includes(': stream open')) open = true;
          if (frame.includes('event: run') && data) events.push(JSON.parse(data.slice(6)));
          waiters.splice(0).forEach((w) => w());
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    res,
    events,
    /** Resolves once the stream's opening comment arrived (the listener is in place). */
    async opened() {
      while (!open) await new Promise<void>((r) => waiters.push(r));
    },
    async until(n: number) {
      while (events.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    close() {
      controller.abort();
    },
  };
}

describe('GET /api/events', () => {
  let hub: RunEventHub;
  let listening = 0;
  let h: Harness;
  let bare: Harness;
  beforeAll(async () => {
    hub = createRunEventHub();
    // The feed the app sees counts its listeners, so a test can tell one was released.
    const feed: RunEventFeed = {
      listen(l) {
        listening += 1;
        const stop = hub.listen(l);
        return () => {
          listening -= 1;
          stop();
        };
      },
      close: () => hub.close(),
    };
    h = await startHarness({ deps: { runEvents: feed } });
    bare = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    await bare.close();
  });

  it('streams each run summary as an SSE `run` event to a reader', async () => {
    const s = await openStream(h.url);
    try {
      expect(s.res.status).toBe(200);
      expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(s.res.headers.get('cache-control')).toBe('no-store');
      await s.opened();
      await hub.publish(summary({ run_id: 'a' }));
      await hub.publish(summary({ run_id: 'b', status: 'failed', error_kind: 'unavailable', error_message: 'down' }));
      await s.until(2);
      expect(s.events).toEqual([summary({ run_id: 'a' }), summary({ run_id: 'b', status: 'failed', error_kind: 'unavailable', error_message: 'down' })]);
    } finally {
      s.close();
    }
  });

  it('filters by hook, topic and status', async () => {
    const s = await openStream(h.url, '/api/events?hook=greet&status=failed');
    try {
      await s.opened();
      await hub.publish(summary({ run_id: 'other-hook', hook: 'other', status: 'failed' }));
      await hub.publish(summary({ run_id: 'ok', status: 'succeeded' }));
      await hub.publish(summary({ run_id: 'wanted', status: 'failed' }));
      await s.until(1);
      expect(s.events.map((e) => e.run_id)).toEqual(['wanted']);
    } finally {
      s.close();
    }
  });

  it('filters by event type, one or several', async () => {
    const s = await openStream(h.url, '/api/events?event=accepted,retried');
    try {
      await s.opened();
      await hub.publish(summary({ run_id: 'started', event: 'started', status: 'running' }));
      await hub.publish(summary({ run_id: 'new', event: 'accepted', status: 'pending' }));
      await hub.publish(summary({ run_id: 'done', event: 'finished' }));
      await hub.publish(summary({ run_id: 'again', event: 'retried', status: 'pending' }));
      await s.until(2);
      expect(s.events.map((e) => [e.run_id, e.event])).toEqual([
        ['new', 'accepted'],
        ['again', 'retried'],
      ]);
    } finally {
      s.close();
    }
  });

  it('releases the listener when the client goes away', async () => {
    const s = await openStream(h.url);
    await s.opened();
    expect(listening).toBe(1);
    s.close();
    for (let i = 0; listening > 0 && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
    expect(listening).toBe(0);
  });

  it('refuses without a token (401), a bad filter (400), and answers 503 with no event source', async () => {
    expect((await h.call('/api/events')).status).toBe(401);
    const bad = await h.call('/api/events?status=nope&x=1&event=accepted,exploded', { role: 'reader' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toHaveLength(3);
    expect(bad.body.error.details[2]).toMatch(/^event must be one or more \(comma-separated\) of accepted\|started\|/);
    const none = await bare.call('/api/events', { role: 'reader' });
    expect(none.status).toBe(503);
    expect(none.body.error.message).toMatch(/no run event source/);
  });
});

describe('run events the ingress announces itself (the hub as its sink, as in the embedded default)', () => {
  let hub: RunEventHub;
  let h: Harness;
  beforeAll(async () => {
    hub = createRunEventHub();
    h = await startHarness({ deps: { runEvents: hub, events: hub } });
    await h.stores.hooks.putHook({ ...(hook('greet', 'demo') as any), created_at: 'x', updated_at: 'x' });
    await h.stores.hooks.putHook({ ...(hook('wave', 'demo') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(() => h.close());

  it("the door announces every run it keeps as accepted, with the run's own created_at, after its answer", async () => {
    const s = await openStream(h.url);
    try {
      await s.opened();
      const res = await fetch(`${h.url}/universal_webhook/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      const answer = (await res.json()) as { run_ids: string[] };
      expect(answer).toMatchObject({ status: 'accepted', runs: 2 });
      await s.until(2);
      const kept = await Promise.all(answer.run_ids.map((id: string) => h.stores.runs.get(id)));
      expect(s.events).toEqual(
        kept.map((r) => ({
          run_id: r!.id,
          event: 'accepted',
          at: r!.created_at,
          hook: r!.hook,
          topic: 'demo',
          status: 'pending',
          attempts: 0,
          error_kind: null,
          error_message: null,
          created_at: r!.created_at,
          finished_at: null,
          due_at: null,
          duration_ms: null,
        })),
      );
    } finally {
      s.close();
    }
  });

  it("an operator's retry, bulk retry, discard and replay are announced", async () => {
    const failed = async (): Promise<string> => {
      const now = Date.now();
      const [kept] = await h.stores.runs.keepEvent({ topic: 'demo', payload: {}, now, dispatchGraceMs: 15000 });
      const c = await h.stores.runs.claim(kept!.id, 'w', 30000, now);
      await h.stores.runs.fail(kept!.id, c!.token, { kind: 'internal', message: 'tool broke' }, now);
      return kept!.id;
    };
    const [one, two] = [await failed(), await failed()];
    const s = await openStream(h.url, '/api/events?hook=greet');
    try {
      await s.opened();
      expect((await h.call(`/api/hook-runs/${one}/retry`, { method: 'POST', role: 'operator' })).status).toBe(200);
      await s.until(1);
      expect(s.events[0]).toMatchObject({ run_id: one, event: 'retried', status: 'pending', hook: 'greet' });
      const bulk = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter: { hook: 'greet' } } });
      expect(bulk.body).toMatchObject({ retried: 1 });
      await s.until(2);
      expect(s.events[1]).toMatchObject({ run_id: two, event: 'retried', status: 'pending' });
      expect((await h.call(`/api/hook-runs/${one}`, { method: 'DELETE', role: 'operator' })).status).toBe(200);
      await s.until(3);
      expect(s.events[2]).toMatchObject({ run_id: one, event: 'discarded', status: 'discarded' });
      const replay = await h.call(`/api/hook-runs/${one}/replay`, { method: 'POST', role: 'operator' });
      expect(replay).toMatchObject({ status: 201 });
      await s.until(4);
      expect(s.events[3]).toMatchObject({ run_id: replay.body.id, event: 'accepted', status: 'pending', attempts: 0 });
    } finally {
      s.close();
    }
  });
});
