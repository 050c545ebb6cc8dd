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
async function openStream(url: string, path = '/api/events', token = TOKENS.reader) {
  const controller = new AbortController();
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const events: RunSummary[] = [];
  let text = '';
  let open = false;
  const waiters: Array<() => void> = [];
  // A refusal's JSON body is left for the test to read.
  if (res.ok)
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

/** The hub as the app's feed, telling `count` +1 for each listener added and -1 for each released. */
function countingFeed(hub: RunEventHub, count: (delta: number) => void): RunEventFeed {
  return {
    listen(l) {
      count(1);
      const stop = hub.listen(l);
      return () => {
        count(-1);
        stop();
      };
    },
    listening: () => hub.listening(),
    listenCall: (runId, l) => hub.listenCall(runId, l),
    close: () => hub.close(),
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
    const feed = countingFeed(hub, (d) => (listening += d));
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

describe('GET /api/events: streams per token, and room kept for operator and admin tokens', () => {
  // A small cap keeps the test fast: 10 streams per ingress, 3 per token, so reader tokens together hold at most 7.
  const READERS = { one: 'reader-one-token-0123456789abcdef', two: 'reader-two-token-0123456789abcdef', three: 'reader-three-token-0123456789abcdef' };
  let hub: RunEventHub;
  let listening = 0;
  let h: Harness;
  const streams: Array<Awaited<ReturnType<typeof openStream>>> = [];
  /** Opens a stream as `token`; an accepted one is kept open (and waited for) until the test ends. */
  const open = async (token: string) => {
    const s = await openStream(h.url, '/api/events', token);
    if (s.res.status === 200) {
      streams.push(s);
      await s.opened();
      return { status: 200, body: undefined as any };
    }
    return { status: s.res.status, body: (await s.res.json()) as any };
  };
  /** Waits until the ingress released every listener but `n` (a closed stream is counted off when its socket closes). */
  const untilListening = async (n: number) => {
    for (let i = 0; listening !== n && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
    expect(listening).toBe(n);
  };

  beforeAll(async () => {
    hub = createRunEventHub();
    const feed = countingFeed(hub, (d) => (listening += d));
    h = await startHarness({
      deps: { runEvents: feed },
      settings: {
        eventStreamsMax: 10,
        eventStreamsPerToken: 3,
        apiTokens: [
          { role: 'reader', token: TOKENS.reader },
          { role: 'operator', token: TOKENS.operator },
          { role: 'admin', token: TOKENS.admin },
          ...Object.values(READERS).map((token) => ({ role: 'reader' as const, token })),
        ],
      },
    });
  });
  afterEach(async () => {
    streams.splice(0).forEach((s) => s.close());
    await untilListening(0);
  });
  afterAll(() => h.close());

  it("a reader token's stream past its cap is 429, saying which cap and how many it holds; the admin still connects; closing one frees its place", async () => {
    for (let i = 0; i < 3; i++) expect((await open(TOKENS.reader)).status).toBe(200);
    const refused = await open(TOKENS.reader);
    expect(refused).toEqual({
      status: 429,
      body: {
        error: {
          kind: 'unavailable',
          message: 'this token already holds 3 event streams, the most one token may hold (HOOKS_EVENT_STREAMS_PER_TOKEN=3); close one first',
        },
      },
    });
    expect((await open(TOKENS.admin)).status).toBe(200);
    // Another reader token has its own count.
    expect((await open(READERS.one)).status).toBe(200);
    streams.shift()!.close();
    await untilListening(4);
    expect((await open(TOKENS.reader)).status).toBe(200);
  });

  it("reader tokens together stop a token's worth short of the process cap: a reader is refused there (503) while the admin connects; past the whole cap everyone is 503", async () => {
    for (const token of [TOKENS.reader, READERS.one]) for (let i = 0; i < 3; i++) expect((await open(token)).status).toBe(200);
    expect((await open(READERS.two)).status).toBe(200);
    // 7 reader streams: the readers' share of 10 is used up.
    const reader = await open(READERS.three);
    expect(reader.status).toBe(503);
    expect(reader.body.error).toEqual({
      kind: 'unavailable',
      message:
        'reader tokens hold 7 event streams, all they may (HOOKS_EVENT_STREAMS_MAX=10 less 3 kept for operator and admin tokens); this token holds 0; retry later',
    });
    for (let i = 0; i < 3; i++) expect((await open(TOKENS.admin)).status).toBe(200);
    // 10 open: the whole cap is used, and an operator is refused too.
    const operator = await open(TOKENS.operator);
    expect(operator.status).toBe(503);
    expect(operator.body.error.message).toBe(
      'too many event streams open (10, the most this ingress holds: HOOKS_EVENT_STREAMS_MAX=10); this token holds 0; retry later',
    );
  });
});
