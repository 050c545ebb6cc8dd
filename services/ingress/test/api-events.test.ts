/**
 * GET /api/events: run summaries as server-sent events, authenticated,
 * filtered by hook/topic/status, each stream's listener released when the
 * client goes away.
 */
import { createRunEventHub, type RunEventFeed, type RunEventHub, type RunSummary } from '@hookyard/bus';
import { startHarness, TOKENS, type Harness } from './support/harness';

const summary = (over: Partial<RunSummary> = {}): RunSummary => ({
  run_id: 'run-1',
  hook: 'greet',
  topic: 'demo',
  status: 'succeeded',
  attempts: 1,
  error_kind: null,
  error_message: null,
  created_at: '2024-01-01T00:00:00.000Z',
  finished_at: '2024-01-01T00:00:01.000Z',
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
    const bad = await h.call('/api/events?status=nope&x=1', { role: 'reader' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toHaveLength(2);
    const none = await bare.call('/api/events', { role: 'reader' });
    expect(none.status).toBe(503);
    expect(none.body.error.message).toMatch(/no run event source/);
  });
});
