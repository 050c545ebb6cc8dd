import { AGENT_TOKEN_PREFIX, agentTokenHash, createLiveSettings, createSecretResolver } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { AUDIT_ROUTES } from '../src/audit/actions';
import { TOKENS, hook, startHarness, type Harness } from './support/harness';
import { apiRoutes, eventually, isWrite, type RouteEntry } from './support/api-routes';

/**
 * The audit trail records what happened, decided by the route: every write
 * route of the inventory is sent `?dry_run=true`, a body field `dry_run:
 * true`, and path parameters (and body names) `dry-run`, each with a request the
 * route would otherwise carry out. Each must end one of three ways: refused
 * (4xx, nothing changed), a real dry run (the route's own, nothing changed),
 * or recorded in GET /api/audit.
 */

const AGENT_TOKEN = `${AGENT_TOKEN_PREFIX}walk-agent-token-0123456789abcdef0123456`;
const NAME = 'walk';
const DRY = 'dry-run';
/** The routes that are previews: they change nothing whatever they are sent. */
const PREVIEWS = new Set(['POST /api/hooks/dry-run', 'POST /api/approval-policy/dry-run']);

type Params = Record<string, string>;
interface Fixture {
  /** Makes what the route acts on (named `name`); answers the path parameters that are ids the store made. */
  seed?(h: Harness, name: string): Promise<Params | void>;
  /** The body of a request the route carries out. */
  body?(name: string): Record<string, unknown>;
  /** An agent's token (the agent door) instead of the admin's. */
  agent?: boolean;
}

const put = (h: Harness, path: string, json: unknown, method = 'PUT') => h.call(path, { method, role: 'admin', json });
async function seedHook(h: Harness, name: string, topic = name): Promise<void> {
  await h.stores.hooks.putHook({ ...(hook(name, topic) as any), created_at: 'x', updated_at: 'x' });
}
async function failedRun(h: Harness, name: string): Promise<Params> {
  await seedHook(h, name);
  const now = Date.now();
  const [kept] = await h.stores.runs.keepEvent({ topic: name, payload: { n: 1 }, now, dispatchGraceMs: 60_000 });
  const c = await h.stores.runs.claim(kept!.id, 'walk', 30_000, now);
  await h.stores.runs.fail(kept!.id, c!.token, { kind: 'internal', message: 'tool broke' }, now);
  return { id: kept!.id };
}
/** A run held failed with an unknown outcome: its non-resumable tool started and its lease lapsed. */
async function heldUnknown(h: Harness, name: string): Promise<Params> {
  await seedHook(h, name);
  const now = Date.now();
  const [kept] = await h.stores.runs.keepEvent({ topic: name, payload: { n: 1 }, now, dispatchGraceMs: 60_000 });
  const c = await h.stores.runs.claim(kept!.id, 'walk', 1_000, now);
  await h.stores.runs.act(kept!.id, c!.token, { acted: 'start', actedIds: [], input: { n: 1 }, resumable: false }, now);
  await h.stores.runs.sweepLapsed(now + 1_001, 10, { maxAttempts: 5, retryDelayMs: 1_000 });
  return { id: kept!.id };
}
async function parked(h: Harness, name: string): Promise<Params> {
  await seedHook(h, name);
  const now = Date.now();
  const [kept] = await h.stores.runs.keepEvent({ topic: name, payload: { n: 1 }, now, dispatchGraceMs: 60_000 });
  const c = (await h.stores.runs.claim(kept!.id, 'walk', 30_000, now))!;
  const { interaction } = await h.stores.interactions.park({
    ...{ run: kept!.id, token: c.token, kind: 'approval', tool: 'echo', argsHash: 'c'.repeat(64), rule: 'walk' },
    ...{ policyVersion: 1, expiresAt: now + 60_000, now },
  });
  return { id: interaction.id };
}
const agentOf = (h: Harness, name: string) =>
  h.stores.agents.create({ name, description: null, tools_allow: ['echo'], tokenHash: agentTokenHash(`${AGENT_TOKEN}-${name}`) }, Date.now());
const unrouted = async (h: Harness, name: string) => {
  expect((await h.call(`/universal_webhook/${name}`, { method: 'POST', json: { n: 1 } })).status).toBe(200);
};
/** A state is declared before it is written. */
const declared = async (h: Harness, name: string) => {
  expect((await put(h, `/api/states/declarations/${name}/${name}`, { schema: {}, description: 'walk' })).status).toBe(201);
};
const tool = (name: string) => ({ name, kind: 'http', endpoint: 'http://127.0.0.1:9/x', protocol: 'openai' });

/** A request each write route carries out; a write route missing here fails the walk. */
const FIXTURES: Record<string, Fixture> = {
  'POST /api/hooks': { body: (n) => hook(n, 'walk-topic') },
  'POST /api/hooks/dry-run': { seed: (h, n) => seedHook(h, n), body: (n) => ({ hook: n, payload: {} }) },
  'DELETE /api/hooks/:name': { seed: (h, n) => seedHook(h, n) },
  'PUT /api/hooks/topics/:topic/verifier': { body: () => ({ kind: 'github', secrets: ['env:HOOKS_SECRET_WALK'] }) },
  'DELETE /api/hooks/topics/:topic/verifier': {
    seed: async (h, n) =>
      void expect((await put(h, `/api/hooks/topics/${n}/verifier`, { kind: 'github', secrets: ['env:HOOKS_SECRET_WALK'] })).status).toBe(201),
  },
  'PUT /api/hooks/topics/:topic/dedupe': { body: () => ({ expr: '.body.id' }) },
  'DELETE /api/hooks/topics/:topic/dedupe': {
    seed: async (h, n) => void expect((await put(h, `/api/hooks/topics/${n}/dedupe`, { expr: '.body.id' })).status).toBe(201),
  },
  'POST /api/hooks/:name/links': { seed: (h, n) => seedHook(h, n), body: () => ({ label: 'walk' }) },
  'DELETE /api/hooks/:name/links/:id': {
    seed: async (h, n) => {
      await seedHook(h, n);
      return { id: (await put(h, `/api/hooks/${n}/links`, { label: 'walk' }, 'POST')).body.link.id };
    },
  },
  'POST /api/hook-runs/retry': { seed: failedRun, body: () => ({ filter: { status: 'failed' } }) },
  'POST /api/hook-runs/discard': { seed: failedRun, body: () => ({ filter: { status: 'failed' } }) },
  'POST /api/hook-runs/:id/retry': { seed: failedRun },
  'POST /api/hook-runs/:id/replay': { seed: failedRun, body: () => ({}) },
  'DELETE /api/hook-runs/:id': { seed: failedRun },
  'POST /api/hook-runs/:id/resolve': { seed: heldUnknown, body: () => ({ outcome: 'succeeded', result: { walked: true }, note: 'walk' }) },
  'POST /api/interactions/:id/approve': { seed: parked, body: () => ({ reason: 'walk' }) },
  'POST /api/interactions/:id/deny': { seed: parked, body: () => ({ reason: 'walk' }) },
  'POST /api/interactions/:id/cancel': { seed: parked, body: () => ({ reason: 'walk' }) },
  'POST /api/tools': { body: (n) => tool(n) },
  'DELETE /api/tools/:name': { seed: async (h, n) => void expect((await put(h, '/api/tools', tool(n), 'POST')).status).toBe(201) },
  'PUT /api/jq-templates/*id': { body: () => ({ content: '.a' }) },
  'DELETE /api/jq-templates/*id': { seed: async (h, n) => void expect((await put(h, `/api/jq-templates/${n}`, { content: '.a' })).status).toBe(201) },
  'PUT /api/approval-policy': { body: () => ({ rules: [{ name: 'walk', tools: ['echo'], action: 'approve' }] }) },
  'POST /api/approval-policy/dry-run': { seed: (h, n) => seedHook(h, n), body: (n) => ({ call: { hook: n, tool: 'echo' } }) },
  'POST /api/settings/reload': {},
  'PUT /api/states/:scope/:kind/:key': { seed: (h, n) => declared(h, n), body: () => ({ document: { a: 2 } }) },
  'DELETE /api/states/:scope/:kind/:key': {
    seed: async (h, n) => {
      await declared(h, n);
      expect((await put(h, `/api/states/${n}/${n}/${n}`, { document: { a: 1 } })).status).toBe(201);
    },
  },
  'PUT /api/states/declarations/:scope/:kind': { body: () => ({ schema: { type: 'object' }, description: 'walk' }) },
  'DELETE /api/states/declarations/:scope/:kind': {
    seed: async (h, n) =>
      void expect((await put(h, `/api/states/declarations/${n}/${n}`, { schema: { type: 'object' }, description: 'walk' })).status).toBe(201),
  },
  'POST /api/unrouted/:topic/replay': {
    seed: async (h, n) => {
      await unrouted(h, n);
      await seedHook(h, `${n}-h`, n);
    },
  },
  'DELETE /api/unrouted/:topic': { seed: unrouted },
  'POST /api/agents': { body: (n) => ({ name: n, tools_allow: ['echo'] }) },
  'PATCH /api/agents/:name': { seed: (h, n) => agentOf(h, n).then(() => undefined), body: () => ({ tools_allow: ['*'] }) },
  'DELETE /api/agents/:name': { seed: (h, n) => agentOf(h, n).then(() => undefined) },
  'POST /api/agents/:name/rotate': { seed: (h, n) => agentOf(h, n).then(() => undefined) },
  'POST /api/calls': { agent: true, seed: (h) => agentOf(h, 'caller').then(() => undefined), body: () => ({ tool: 'echo', arguments: {}, wait_seconds: 0 }) },
};

/** Everything the memory stores hold but the audit trail and the limiter's buckets, as one comparable text. */
function snapshot(stores: Stores): string {
  const seen = new WeakSet<object>();
  const parts = [stores.hooks, stores.runs, stores.tools, stores.interactions, stores.states, stores.declarations, stores.agents];
  return JSON.stringify(parts, (_k, v: unknown) => {
    if (typeof v === 'function') return undefined;
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v];
    if (v !== null && typeof v === 'object') {
      if (seen.has(v)) return '[seen]';
      seen.add(v);
    }
    return v;
  });
}

type Variant = 'query' | 'body' | 'segment';

/** The concrete path: every parameter is the name (`dry-run` for the segment variant), ids the seed made replace it elsewhere. */
function pathOf(route: RouteEntry, name: string, ids: Params, variant: Variant): string {
  return route.path.replace(/[:*]([a-z]+)/g, (_m, p: string) => (variant === 'segment' ? DRY : (ids[p] ?? name)));
}

describe('audit walk: every write route and dry_run', () => {
  let routes: RouteEntry[];
  beforeAll(async () => {
    const h = await startHarness({ deps: { limiter: null } });
    routes = apiRoutes(h.app).filter(isWrite);
    await h.close();
  });

  async function harness(): Promise<Harness> {
    const live = createLiveSettings({ env: { HOOKS_API_TOKENS: `reader:${TOKENS.reader},operator:${TOKENS.operator},admin:${TOKENS.admin}` } });
    return startHarness({
      deps: {
        limiter: null,
        secrets: createSecretResolver({ env: { HOOKS_SECRET_WALK: 'walk-secret-0123456789' } }),
        settingsControl: { view: () => live.view(), reload: () => live.reload('api') },
      },
    });
  }

  /** One request of `route` in `variant`; answers a line naming what went wrong, or null. */
  async function walk(route: RouteEntry, variant: Variant): Promise<string | null> {
    const key = `${route.method} ${route.path}`;
    const f = FIXTURES[key]!;
    const name = variant === 'segment' ? DRY : NAME;
    const h = await harness();
    try {
      const ids = (await f.seed?.(h, name)) ?? {};
      const path = pathOf(route, name, ids, variant);
      const body = f.body?.(name);
      const json = variant === 'body' ? { ...body, dry_run: true } : body;
      const url = variant === 'query' ? `${path}?dry_run=true` : path;
      const headers: Record<string, string> = f.agent ? { authorization: `Bearer ${AGENT_TOKEN}-caller` } : {};
      const before = snapshot(h.stores);
      const res = await h.call(url, { method: route.method, headers, ...(f.agent ? {} : { role: 'admin' as const }), json });
      const changed = snapshot(h.stores) !== before;
      const line = `${variant} ${route.method} ${url} -> ${res.status}`;
      if (res.status >= 400) return changed ? `${line}: refused, yet something changed` : null;
      if (PREVIEWS.has(key) || res.body?.dry_run === true) return changed ? `${line}: a dry run that changed something` : null;
      const isIt = (e: any) => e.request.method === route.method && e.request.path === path && e.status === res.status;
      // The entry is written in the microtasks after the answer (the memory store does no I/O), before the next
      // request is served: the deadline only bounds how long a missing one is looked for.
      const audit = await eventually(
        () => h.call('/api/audit?limit=500', { role: 'admin' }),
        (r) => r.body.entries?.some(isIt),
        2_000,
      );
      const recorded = audit.body.entries?.some(isIt) === true;
      return recorded ? null : `${line}: ${changed ? 'changed' : 'answered'} and not in GET /api/audit`;
    } finally {
      await h.close();
    }
  }

  it('every write route, given ?dry_run=true, a body dry_run or a path segment named dry-run, is refused with nothing changed, a real dry run that changed nothing, or recorded in GET /api/audit', async () => {
    // Every write route has a request here, and every route the audit table names is one the router has.
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.filter((k) => !FIXTURES[k])).toEqual([]);
    expect(AUDIT_ROUTES.filter((k) => !keys.includes(k))).toEqual([]);
    expect(routes.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const route of routes) {
      // A route with neither a path parameter nor a name in its body has nothing to name dry-run.
      const named = /[:*]/.test(route.path) || JSON.stringify(FIXTURES[`${route.method} ${route.path}`]!.body?.(DRY) ?? {}).includes(DRY);
      for (const variant of named ? (['query', 'body', 'segment'] as const) : (['query', 'body'] as const)) {
        const line = await walk(route, variant);
        if (line) wrong.push(line);
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it('a route that honours dry_run performs it and changes nothing; the same request without it is recorded', async () => {
    const h = await harness();
    try {
      await failedRun(h, NAME);
      const before = snapshot(h.stores);
      const dry = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter: { status: 'failed' }, dry_run: true } });
      expect(dry.body).toMatchObject({ dry_run: true, matched: 1, retried: 0 });
      expect(snapshot(h.stores)).toBe(before);
      const real = await h.call('/api/hook-runs/retry', { method: 'POST', role: 'operator', json: { filter: { status: 'failed' } } });
      expect(real.body).toMatchObject({ dry_run: false, matched: 1, retried: 1 });
      const entries = await eventually(
        async () => (await h.call('/api/audit?action=runs.bulk_retry', { role: 'admin' })).body.entries,
        (e: any[]) => e.length >= 1,
      );
      expect(entries).toEqual([expect.objectContaining({ status: 200, detail: expect.objectContaining({ matched: 1, done: 1 }) })]);
      // A dry_run a route does not honour is a 400 naming it, and that refusal is in the trail.
      const refused = await h.call('/api/hooks?dry_run=true', { method: 'POST', role: 'operator', json: hook('x1', 'orders') });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe('query parameter dry_run refused on POST /api/hooks: it has no dry run, and would make the change');
      expect(await h.stores.hooks.getHook('x1')).toBeNull();
      const logged = await eventually(
        async () => (await h.call('/api/audit?action=hook.register', { role: 'admin' })).body.entries,
        (e: any[]) => e.length >= 1,
      );
      expect(logged).toEqual([expect.objectContaining({ status: 400, target: 'x1', request: { method: 'POST', path: '/api/hooks' } })]);
    } finally {
      await h.close();
    }
  });
});
