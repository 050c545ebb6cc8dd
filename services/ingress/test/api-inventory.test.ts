import { AGENT_TOKEN_PREFIX, agentTokenHash, createLiveSettings } from '@hookyard/core';
import { AGENT_DOOR_ONLY } from '../src/api/auth';
import { createSecretResolver } from '../src/verify';
import { TOKENS, hook, startHarness, type Harness } from './support/harness';

const VERIFIER_SECRET = 'inventory-verifier-secret-9f8e7d';
const AGENT_TOKEN = `${AGENT_TOKEN_PREFIX}inventory-agent-token-0123456789abcdef012345`;
/** The routes an agent token reaches (the agent door's); every other /api route refuses it. */
const AGENT_DOOR_ROUTES = new Set(['POST /api/calls', 'GET /api/calls/:id']);

type Role = 'reader' | 'operator' | 'admin';
interface RouteEntry {
  method: string;
  path: string;
}

/** Reads every route mounted under /api from express 5's router stack. */
function apiRoutes(app: any): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const layer of app.router.stack) {
    if (layer.rawPath !== '/api' || !layer.handle?.stack) continue;
    for (const inner of layer.handle.stack) {
      if (!inner.route) continue;
      for (const method of Object.keys(inner.route.methods)) out.push({ method: method.toUpperCase(), path: `/api${inner.route.path}` });
    }
  }
  return out;
}

/** The role each route must demand: reads are reader; verifier, dedupe-key, tool-registry, approval-policy and state-declaration writes admin; other writes operator. */
function expectedRole(r: RouteEntry): Role {
  // The effective settings are not for every reader; reloading them is for admins.
  if (r.path === '/api/settings') return 'operator';
  if (r.path === '/api/settings/reload') return 'admin';
  // Agent principals are made, shown and revoked by admins only.
  if (r.path.startsWith('/api/agents')) return 'admin';
  // The audit trail shows who did what: admins only.
  if (r.path === '/api/audit') return 'admin';
  if (r.method === 'GET') return 'reader';
  // Declaring a state decides what every hook may write into it: admins only.
  if (r.path.startsWith('/api/states/declarations')) return 'admin';
  if (r.path.startsWith('/api/tools') || r.path.endsWith('/verifier') || r.path.endsWith('/dedupe') || r.path === '/api/approval-policy') return 'admin';
  return 'operator';
}

function concrete(path: string): string {
  return path
    .replace(':name', 'inv-hook')
    .replace(':topic', 'inv-topic')
    .replace(':id', '0000000000000000000000')
    .replace(':scope', 'inv-scope')
    .replace(':kind', 'inv-kind')
    .replace(':key', 'inv-key')
    .replace('*id', 'jq/inv');
}

describe('route inventory: every /api route is guarded', () => {
  let h: Harness;
  let routes: RouteEntry[];
  const bodies: string[] = [];
  beforeAll(async () => {
    // The settings routes show settings made from the same tokens: none may appear in a body.
    const live = createLiveSettings({
      env: {
        HOOKS_API_TOKENS: `reader:${TOKENS.reader},operator:${TOKENS.operator},admin:${TOKENS.admin}`,
        HOOKS_REDIS_URL: `redis://u:${VERIFIER_SECRET}@127.0.0.1:6379`,
      },
    });
    h = await startHarness({
      deps: {
        secrets: createSecretResolver({ env: { HOOKS_SECRET_INV_SECRET: VERIFIER_SECRET } }),
        verifierCacheMs: 0,
        settingsControl: { view: () => live.view(), reload: () => live.reload('api') },
      },
    });
    routes = apiRoutes(h.app);
    // Times as a store writes them: every answer is checked against its declared shape (a 500 would hide the bodies read).
    const at = '2026-01-01T00:00:00.000Z';
    await h.stores.hooks.putHook({ ...(hook('inv-hook', 'inv-topic') as any), created_at: at, updated_at: at });
    await h.stores.hooks.putVerifier({
      topic: 'inv-topic',
      kind: 'shared_secret',
      settings: {},
      secrets: ['env:HOOKS_SECRET_INV_SECRET'],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const record = (r: { text: string }) => bodies.push(r.text);

  it('finds the documented routes in the stack', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    for (const must of [
      'GET /api/hooks',
      'POST /api/hooks',
      'DELETE /api/hooks/:name',
      'PUT /api/hooks/topics/:topic/verifier',
      'DELETE /api/hooks/topics/:topic/verifier',
      'GET /api/hook-runs',
      'GET /api/hook-runs/counts',
      'POST /api/hook-runs/:id/retry',
      'DELETE /api/hook-runs/:id',
      'POST /api/tools',
      'PUT /api/jq-templates/*id',
      'GET /api/approval-policy',
      'PUT /api/approval-policy',
      'GET /api/hooks/schema',
      'POST /api/hooks/dry-run',
      'GET /api/states',
      'GET /api/states/:scope/:kind/:key',
      'PUT /api/states/:scope/:kind/:key',
      'DELETE /api/states/:scope/:kind/:key',
      'GET /api/settings',
      'POST /api/settings/reload',
    ]) {
      expect(keys).toContain(must);
    }
    expect(routes.length).toBeGreaterThanOrEqual(19);
  });

  it('answers 401 without a token and with a wrong one, on every route', async () => {
    for (const r of routes) {
      const none = await h.call(concrete(r.path), { method: r.method, json: r.method === 'GET' ? undefined : {} });
      record(none);
      expect([r.method, r.path, none.status]).toEqual([r.method, r.path, 401]);
      expect(none.body.error.kind).toBe('unauthorized');
      const wrong = await h.call(concrete(r.path), { method: r.method, headers: { authorization: `Bearer ${TOKENS.admin}x` } });
      record(wrong);
      expect([r.method, r.path, wrong.status]).toEqual([r.method, r.path, 401]);
    }
  });

  it('answers 403 to a role too weak for the route (reader on writes, operator on admin routes)', async () => {
    let checked = 0;
    for (const r of routes) {
      // Agent routes take agent tokens only: every management role is too weak (api-calls.test.ts covers the agent).
      if (r.path.startsWith('/api/calls')) {
        for (const role of ['reader', 'operator', 'admin'] as const) {
          const res = await h.call(concrete(r.path), { method: r.method, role, json: r.method === 'GET' ? undefined : {} });
          expect([r.method, r.path, role, res.status]).toEqual([r.method, r.path, role, 403]);
        }
        continue;
      }
      const need = expectedRole(r);
      const weaker: Role[] = need === 'admin' ? ['reader', 'operator'] : need === 'operator' ? ['reader'] : [];
      for (const role of weaker) {
        const res = await h.call(concrete(r.path), { method: r.method, role, json: r.method === 'GET' ? undefined : {} });
        record(res);
        expect([r.method, r.path, role, res.status]).toEqual([r.method, r.path, role, 403]);
        expect(res.body.error.kind).toBe('forbidden');
        checked++;
      }
      const enough = await h.call(concrete(r.path), { method: r.method, role: need, json: r.method === 'GET' ? undefined : {} });
      record(enough);
      expect([r.method, r.path, need, [401, 403].includes(enough.status)]).toEqual([r.method, r.path, need, false]);
    }
    expect(checked).toBeGreaterThanOrEqual(14);
  });

  it('answers 403 to an agent token on every route outside the agent door (GET /api/tools only with ?format)', async () => {
    await h.stores.agents.create({ name: 'inv-bot', description: null, tools_allow: ['*'], tokenHash: agentTokenHash(AGENT_TOKEN) }, Date.now());
    let checked = 0;
    for (const r of routes) {
      if (AGENT_DOOR_ROUTES.has(`${r.method} ${r.path}`)) continue;
      const res = await h.call(concrete(r.path), {
        method: r.method,
        headers: { authorization: `Bearer ${AGENT_TOKEN}` },
        json: r.method === 'GET' ? undefined : {},
      });
      record(res);
      expect([r.method, r.path, res.status, res.body.error?.message]).toEqual([r.method, r.path, 403, AGENT_DOOR_ONLY]);
      checked++;
    }
    expect(checked).toBe(routes.length - routes.filter((r) => AGENT_DOOR_ROUTES.has(`${r.method} ${r.path}`)).length);
    const exported = await h.call('/api/tools?format=mcp', { headers: { authorization: `Bearer ${AGENT_TOKEN}` } });
    expect(exported.status).toBe(200);
    await h.stores.agents.remove('inv-bot');
  });

  it('never shows a configured token or secret in any body (also on the admin reads)', async () => {
    // The previous test's admin DELETE removed the binding; bind it again.
    await h.stores.hooks.putVerifier({
      topic: 'inv-topic',
      kind: 'shared_secret',
      settings: {},
      secrets: ['env:HOOKS_SECRET_INV_SECRET'],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    for (const path of [
      '/api/settings',
      '/api/hooks',
      '/api/approval-policy',
      '/api/hooks/topics/inv-topic/verifier',
      '/api/tools',
      '/api/hook-runs',
      '/metrics',
      '/readyz',
    ]) {
      record(await h.call(path, { role: 'admin' }));
    }
    const door = await h.call('/universal_webhook/inv-topic', { method: 'POST', json: {}, headers: { 'x-webhook-secret': 'nope' } });
    expect(door.status).toBe(401);
    record(door);
    expect(bodies.length).toBeGreaterThan(40);
    for (const body of bodies) {
      for (const secret of [...Object.values(TOKENS), VERIFIER_SECRET, AGENT_TOKEN]) expect(body.includes(secret)).toBe(false);
    }
    expect(bodies.some((b) => b.includes('env:HOOKS_SECRET_INV_SECRET'))).toBe(true);
  });
});
