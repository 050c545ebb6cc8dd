import { createHash } from 'node:crypto';
import { approvalLinks, createLiveSettings, createSecretResolver } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { TOKENS, hook, startHarness, type Harness } from './support/harness';

const KEY = 'audit-link-key-0123456789abcdef0123456789';
const tokenLabel = (role: keyof typeof TOKENS) => `${role}:${createHash('sha256').update(TOKENS[role]).digest('hex').slice(0, 8)}`;

/** Polls until `check` passes: entries are written after the answer has gone. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The audit trail: every operator and admin change recorded once (who, what,
 * when, from where, before and after), listed by an admin only, never
 * holding a secret; a store that refuses the entry never fails the change.
 */
describe('audit trail API', () => {
  let h: Harness;
  const env: Record<string, string | undefined> = {
    HOOKS_API_TOKENS: `reader:${TOKENS.reader},operator:${TOKENS.operator},admin:${TOKENS.admin}`,
    HOOKS_RUN_MAX_ATTEMPTS: '5',
  };
  beforeEach(async () => {
    const live = createLiveSettings({ env });
    h = await startHarness({
      settings: { approvalLinkSecret: 'env:HOOKS_SECRET_LINKS', publicUrl: 'https://hooks.example.test' },
      deps: {
        secrets: createSecretResolver({ env: { HOOKS_SECRET_LINKS: KEY } }),
        settingsControl: { view: () => live.view(), reload: () => live.reload('api') },
      },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  const audit = (query = '') => h.call(`/api/audit${query}`, { role: 'admin' });
  /** The entries of `action`, once `count` of them are there. */
  const entriesOf = async (action: string, count = 1) =>
    (
      await eventually(
        () => audit(`?action=${action}`),
        (r) => r.body.entries?.length >= count,
      )
    ).body.entries as any[];

  async function parked() {
    await h.stores.hooks.putHook({ ...(hook('deployer', 'deploys') as any), created_at: 'x', updated_at: 'x' });
    const now = Date.now();
    const [kept] = await h.stores.runs.keepEvent({ topic: 'deploys', payload: { n: 1 }, now, dispatchGraceMs: 60_000 });
    const claimed = (await h.stores.runs.claim(kept!.id, 'test', 30_000, now))!;
    const { interaction } = await h.stores.interactions.park({
      run: kept!.id,
      token: claimed.token,
      kind: 'approval',
      tool: 'echo',
      argsHash: 'c'.repeat(64),
      rule: 'prod',
      policyVersion: 1,
      expiresAt: now + 60_000,
      now,
    });
    return interaction;
  }

  it('is for admins only: reader, operator and an agent get 403; a bad filter is a 400 naming it', async () => {
    const made = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'bot', tools_allow: ['echo'] } });
    expect(made.status).toBe(201);
    for (const role of ['reader', 'operator'] as const) expect((await h.call('/api/audit', { role })).status).toBe(403);
    const agent = await h.call('/api/audit', { headers: { authorization: `Bearer ${made.body.token}` } });
    expect(agent.status).toBe(403);
    expect((await h.call('/api/audit')).status).toBe(401);
    const ok = await audit();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ entries: expect.any(Array), next_cursor: null, retention_days: 30, max_entries: 20000 });
    const bad = await audit('?since=yesterday&action=Hook%20Register&colour=red');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      "unknown query parameter 'colour' (known: action, actor, target, since, until, limit, cursor)",
      'action must be an action such as hook.register, or a family such as hook.*, got "Hook Register"',
      'since must be an ISO 8601 time (e.g. 2026-01-31T12:00:00Z), got "yesterday"',
    ]);
  });

  it("records an operator's hook registration once, with who, what, when, where, before and after; a replacement keeps the old record as before", async () => {
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('h1', 'orders') })).status).toBe(201);
    const [first] = await entriesOf('hook.register');
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{22}$/),
      at: expect.any(String),
      actor: { kind: 'token', role: 'operator', label: tokenLabel('operator') },
      action: 'hook.register',
      target: 'h1',
      client: expect.stringMatching(/127\.0\.0\.1/),
      status: 201,
      request: { method: 'POST', path: '/api/hooks' },
      before: null,
      after: expect.objectContaining({ name: 'h1', topic: 'orders', tool: 'echo' }),
    });
    expect((await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('h1', 'payments') })).status).toBe(200);
    const both = await entriesOf('hook.register', 2);
    expect(both).toHaveLength(2);
    expect(both[0]).toMatchObject({ status: 200, before: { topic: 'orders' }, after: { topic: 'payments' } });
    // Reads and dry runs are not changes.
    await h.call('/api/hooks', { role: 'operator' });
    await h.call('/api/hooks/dry-run', { method: 'POST', role: 'operator', json: { hook: 'h1', payload: {} } });
    expect((await h.call('/api/hooks/h1', { method: 'DELETE', role: 'operator' })).status).toBe(200);
    const [removed] = await entriesOf('hook.remove');
    expect(removed).toMatchObject({ target: 'h1', before: { topic: 'payments' }, after: null });
    expect((await audit()).body.entries.map((e: any) => e.action)).toEqual(['hook.remove', 'hook.register', 'hook.register']);
  });

  it('records a policy change with the policy before and after, and a refused attempt with its status and no before/after', async () => {
    const rules = [{ name: 'prod', tools: ['echo'], action: 'approve' }];
    expect((await h.call('/api/approval-policy', { method: 'PUT', role: 'operator', json: { rules } })).status).toBe(403);
    const put = await h.call('/api/approval-policy', { method: 'PUT', role: 'admin', json: { rules } });
    expect(put.status).toBe(200);
    const entries = await entriesOf('policy.update', 2);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      actor: { kind: 'token', role: 'admin', label: tokenLabel('admin') },
      status: 200,
      before: { version: 0, rules: [] },
      after: { version: put.body.version, rules },
    });
    expect(entries[1]).toMatchObject({ actor: { role: 'operator' }, status: 403 });
    expect(entries[1]).not.toHaveProperty('before');
    expect(entries[1]).not.toHaveProperty('after');
    // Filters: by actor label, by role, by time.
    expect((await audit(`?actor=${tokenLabel('admin')}`)).body.entries).toHaveLength(1);
    expect((await audit('?actor=operator&action=policy.*')).body.entries).toHaveLength(1);
    expect((await audit(`?until=${new Date(Date.parse(entries[1].at) - 1).toISOString()}`)).body.entries).toEqual([]);
  });

  it('records an approval through the API (operator) and one through a signed link (the link as actor), each once', async () => {
    const i = await parked();
    const r = await h.call(`/api/interactions/${i.id}/approve`, { method: 'POST', role: 'operator', json: { reason: 'looks right' } });
    expect(r.status).toBe(200);
    const [approved] = await entriesOf('interaction.approve');
    expect(approved).toMatchObject({
      actor: { kind: 'token', role: 'operator' },
      target: i.id,
      status: 200,
      after: { status: 'approved', run: i.run, resolution: { via: 'api' } },
      detail: { reason: 'looks right' },
    });
    const j = await parked();
    const links = approvalLinks('https://hooks.example.test', Buffer.from(KEY), j, Date.now(), 3_600_000, 'operator:0badc0de');
    const deny = links.deny_url.replace('https://hooks.example.test', '');
    const answered = await h.call(deny, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'reason=no' });
    expect(answered.status).toBe(200);
    const [denied] = await entriesOf('interaction.deny');
    expect(denied).toMatchObject({
      actor: { kind: 'link', role: null, label: `link:${j.id}` },
      target: j.id,
      status: 200,
      before: { status: 'open' },
      after: { status: 'denied', resolution: { via: 'link' } },
      detail: { reason: 'no' },
    });
    expect((await audit('?actor=link')).body.entries).toHaveLength(1);
    expect((await audit('?action=interaction.*')).body.entries.map((e: any) => e.action)).toEqual(['interaction.deny', 'interaction.approve']);
    // The link's signature is nowhere in the trail.
    const sig = new URL(links.deny_url).searchParams.get('sig')!;
    expect((await audit()).text).not.toContain(sig);
  });

  it('records a settings reload with the variables before and after', async () => {
    env.HOOKS_RUN_MAX_ATTEMPTS = '7';
    try {
      const r = await h.call('/api/settings/reload', { method: 'POST', role: 'admin' });
      expect(r.status).toBe(200);
      const [reload] = await entriesOf('settings.reload');
      expect(reload).toMatchObject({
        actor: { role: 'admin' },
        status: 200,
        before: { HOOKS_RUN_MAX_ATTEMPTS: 5 },
        after: { HOOKS_RUN_MAX_ATTEMPTS: 7 },
        detail: { applied: ['HOOKS_RUN_MAX_ATTEMPTS'], restart_needed: [] },
      });
      expect((await entriesOf('settings.reload')).length).toBe(1);
    } finally {
      env.HOOKS_RUN_MAX_ATTEMPTS = '5';
    }
  });

  it('never holds a secret: agent tokens (create, rotate), trigger link tokens and API tokens are absent from the whole trail', async () => {
    const made = await h.call('/api/agents', { method: 'POST', role: 'admin', json: { name: 'ci-bot', tools_allow: ['echo'] } });
    const rotated = await h.call('/api/agents/ci-bot/rotate', { method: 'POST', role: 'admin' });
    await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('linked', 'orders', { tool_kwargs: { note: `Bearer ${TOKENS.admin}` } }) });
    const link = await h.call('/api/hooks/linked/links', { method: 'POST', role: 'operator', json: { label: 'ci' } });
    expect([made.status, rotated.status, link.status]).toEqual([201, 200, 201]);
    // An agent's call is not an operator change; its attempt at a management route is (refused, 403).
    expect((await h.call('/api/hooks/linked', { method: 'DELETE', headers: { authorization: `Bearer ${rotated.body.token}` } })).status).toBe(403);
    await entriesOf('trigger_link.create');
    const all = await eventually(
      () => audit(),
      (r) => r.body.entries.length >= 5,
    );
    expect(all.body.entries.map((e: any) => e.action)).toEqual(['hook.remove', 'trigger_link.create', 'hook.register', 'agent.rotate', 'agent.create']);
    expect(all.body.entries[0]).toMatchObject({ actor: { kind: 'agent', role: null, label: 'agent:ci-bot' }, status: 403 });
    expect(all.body.entries[1].after).toMatchObject({ hook: 'linked', label: 'ci' });
    expect(all.body.entries[4].after).toMatchObject({ name: 'ci-bot' });
    for (const secret of [made.body.token, rotated.body.token, link.body.token, link.body.path, TOKENS.admin, TOKENS.operator]) {
      expect(typeof secret).toBe('string');
      expect(all.text).not.toContain(secret);
    }
  });

  it('a store that refuses the entry never fails the change: logged and counted', async () => {
    const stores = createMemoryStores();
    stores.audit.record = async () => {
      throw new Error('audit store down');
    };
    const other = await startHarness({ stores });
    try {
      expect((await other.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('h2', 'orders') })).status).toBe(201);
      const metric = async () => other.metrics.registry.getSingleMetricAsString('tai42_hook_runs_audit_write_failures_total');
      expect(await eventually(metric, (m) => m.includes('tai42_hook_runs_audit_write_failures_total 1'))).toContain(
        'tai42_hook_runs_audit_write_failures_total 1',
      );
      expect(await other.stores.hooks.getHook('h2')).not.toBeNull();
    } finally {
      await other.close();
    }
  });

  it('pages newest first with a cursor', async () => {
    for (const name of ['p1', 'p2', 'p3']) await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook(name, 'orders') });
    await entriesOf('hook.register', 3);
    const first = await audit('?limit=2');
    expect(first.body.entries.map((e: any) => e.target)).toEqual(['p3', 'p2']);
    const second = await audit(`?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ entries: [expect.objectContaining({ target: 'p1' })], next_cursor: null });
  });
});
