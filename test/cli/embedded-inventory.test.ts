/**
 * What a restart of the embedded default loses, as its banner names it and
 * its stop line counts it: one of each kind an in-memory store holds (agents,
 * trigger links, unrouted events, the audit trail and the rest), created
 * through the API and the door, then counted from the store at the stop.
 */
import { randomBytes } from 'node:crypto';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { LOOPBACK_NETS_ENV } from '../support/services';

describe('embedded default: the banner names and the stop line counts everything a restart loses', () => {
  let tool: MockServer;
  let server: RoleProcess | null = null;

  beforeAll(async () => {
    requireBuiltCli();
    tool = await startMockServer(async (req) => (req.method === 'POST' ? { body: '{"ok":true}' } : { status: 404 }));
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await tool?.close();
  });

  it('names each kind at start and counts one of each at the stop', async () => {
    const token = randomBytes(16).toString('hex');
    server = startRole('embedded', 'all', {
      HOOKS_API_TOKENS: `admin:${token}`,
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
      HOOKS_SECRET_INVENTORY: 'a-signing-secret',
    });
    const url = await server.waitListening();
    const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    };

    await eventually(async () => (server!.lines.some((l) => l.includes('to keep them')) ? true : undefined), 10_000, 'the banner');
    const banner = server.lines.find((l) => l.includes('only in memory, lost when this process stops:'))!;
    for (const kind of [
      'hooks',
      'tools',
      'verifier bindings',
      'dedupe keys',
      'the approval policy',
      'templates',
      'declared states',
      'agents',
      'trigger links',
      'runs',
      'approvals and waits',
      'subject state',
      'unrouted events',
      'the audit trail',
      'the delivery ids the duplicate check has seen',
    ])
      expect(banner).toContain(kind);

    await call('POST', '/api/tools', { name: 'gated', endpoint: tool.url, protocol: 'langserve-direct' });
    await call('POST', '/api/hooks', { name: 'plain', topic: 'plain', tool: 'echo' });
    await call('POST', '/api/hooks', { name: 'gated', topic: 'gated', tool: 'gated' });
    await call('PUT', '/api/hooks/topics/signed/verifier', { kind: 'github', secrets: ['env:HOOKS_SECRET_INVENTORY'] });
    await call('PUT', '/api/hooks/topics/plain/dedupe', { expr: '.body.id' });
    await call('PUT', '/api/approval-policy', { rules: [{ name: 'gate', tools: ['gated'], action: 'approve' }] });
    await call('PUT', '/api/jq-templates/jq/inventory', { content: '.a' });
    await call('PUT', '/api/states/declarations/repo/pr', { schema: {}, description: 'a pull request' });
    await call('PUT', '/api/states/repo/pr/7', { document: { open: true } });
    await call('POST', '/api/agents', { name: 'inventory-bot', tools_allow: ['*'] });
    await call('POST', '/api/hooks/plain/links', { label: 'inventory' });
    // The door: a kept event (its dedupe key's value is a delivery id seen), two gated ones, one no hook takes.
    await call('POST', '/universal_webhook/plain', { id: 'evt-1' });
    await call('POST', '/universal_webhook/gated', { n: 1 });
    await call('POST', '/universal_webhook/gated', { n: 2 });
    await call('POST', '/universal_webhook/nobody', { n: 3 });
    const open = await eventually(
      async () => {
        const page = (await call('GET', '/api/interactions?status=open')) as { interactions: Array<{ id: string }> };
        return page.interactions.length === 2 ? page.interactions : undefined;
      },
      15_000,
      'two open approvals',
    );
    await call('POST', `/api/interactions/${open[0]!.id}/approve`, { reason: 'checked' });
    // Settled: the plain run and the approved one finished, the other still parked.
    await eventually(
      async () => {
        const page = (await call('GET', '/api/hook-runs')) as { runs: Array<{ status: string }> };
        const statuses = page.runs.map((r) => r.status).sort();
        return JSON.stringify(statuses) === JSON.stringify(['parked', 'succeeded', 'succeeded']) ? true : undefined;
      },
      15_000,
      'two runs finished and one parked',
    );
    const audit = (await call('GET', '/api/audit?limit=500')) as { entries: unknown[]; next_cursor: string | null };
    expect(audit.next_cursor).toBeNull();
    const entries = audit.entries.length;
    expect(entries).toBeGreaterThanOrEqual(12);

    expect(await server.stop('SIGINT', 15_000)).toBe(0);
    const last = server.lines.find((l) => l.startsWith('hookyard: stopped;'));
    expect(last).toBe(
      'hookyard: stopped; lost with the in-memory store: 2 hooks, 1 tool, 1 verifier binding, 1 dedupe key, 1 approval rule, 1 template, ' +
        '1 declared state, 1 agent, 1 trigger link, 1 run under way, 2 finished runs, 1 open approval, 1 answered approval, 1 subject state, ' +
        `1 unrouted event, ${entries} audit entries, 1 delivery id seen`,
    );
  });
});
