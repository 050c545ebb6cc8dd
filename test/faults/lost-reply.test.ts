/**
 * A store write that ran in Redis and whose reply was lost, against a running
 * ingress: its Redis is the shared one behind a TCP proxy that lets the one
 * request carrying a marker through, drops its answer and closes, then
 * refuses connections until the test restores it (Redis "away" after running
 * the script). The answer must be "outcome unknown" naming how to find out,
 * never "not sent"; and a one-use trigger link must not fire twice.
 */
import { randomBytes } from 'node:crypto';
import { createRedisStores, type Stores } from '@hookyard/store';
import { Api } from '../e2e/api';
import { eventually, requireBuiltCli, roleEnv, startListening, type RoleProcess } from '../support/processes';
import { cleanupPrefix, requireNats, requireRedis, uniquePrefix } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';

jest.setTimeout(90_000);

const PARTITIONS = 4;
const token = randomBytes(24).toString('hex');
const prefix = uniquePrefix('lostreply');
let proxy: TcpProxy;
let role: RoleProcess;
let api: Api;
/** The same Redis without the proxy: what the test reads and prepares behind the role's back. */
let direct: Stores;

interface ErrorBody {
  error: { kind: string; message: string };
}

const nonce = () => `n-${randomBytes(8).toString('hex')}`;

async function post(path: string, body: unknown, auth = token): Promise<{ status: number; text: string }> {
  const res = await fetch(`${api.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The role's store is connected again (its /readyz pings it). */
const reconnected = () =>
  eventually(async () => ((await fetch(`${api.base}/readyz`)).status === 200 ? true : undefined), 30_000, 'the ingress to reach Redis again');

beforeAll(async () => {
  requireBuiltCli();
  const url = await requireRedis();
  await requireNats();
  const u = new URL(url);
  proxy = await TcpProxy.start({ host: u.hostname, port: Number(u.port || 6379) });
  direct = await createRedisStores({ url, prefix, partitions: PARTITIONS });
  role = await startListening(
    'ingress',
    'ingress',
    roleEnv(prefix, token, {
      HOOKS_REDIS_URL: proxy.url,
      HOOKS_RUN_PARTITIONS: String(PARTITIONS),
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_AGENT_RATE: '0',
    }),
  );
  api = new Api(role.url, token);
}, 60_000);

afterEach(async () => {
  proxy.restore();
  await reconnected();
});

afterAll(async () => {
  await role?.stop();
  await proxy?.close();
  await direct?.close();
  await cleanupPrefix(prefix);
});

describe('a store write whose reply is lost answers "outcome unknown", never "not sent"', () => {
  it('an agent call (POST /api/calls) kept with its reply lost is 503 outcome unknown naming its key; the repeat attaches to the one run', async () => {
    const made = await api.ok<{ token: string }>('POST', '/api/agents', { name: 'lost-reply-agent', tools_allow: ['echo'] });
    const key = `k-${nonce()}`;
    const marker = nonce();
    const call = { tool: 'echo', arguments: { marker }, idempotency_key: key, wait_seconds: 0 };
    const cuts = proxy.cuts;
    proxy.cutReplyTo(marker);
    const first = await post('/api/calls', call, made.token);
    expect(proxy.cuts).toBe(cuts + 1);
    const err = (JSON.parse(first.text) as ErrorBody).error;
    expect([first.status, err.kind]).toEqual([503, 'unavailable']);
    expect(err.message).toContain('outcome unknown');
    expect(err.message).not.toContain('not sent');
    expect(err.message).toContain(JSON.stringify(key));

    proxy.restore();
    // The keep did run: its run is there, the one the repeat with the key attaches to.
    const runs = await eventually(
      async () => {
        const page = await direct.runs.list({ hook: 'agent:lost-reply-agent' }, 10);
        return page.runs.length > 0 ? page.runs : undefined;
      },
      30_000,
      'the lost keep to be seen',
    );
    expect(runs).toHaveLength(1);
    await reconnected();
    const again = await post('/api/calls', call, made.token);
    expect([again.status, (JSON.parse(again.text) as { id: string }).id]).toEqual([202, runs[0]!.id]);
    expect((await direct.runs.list({ hook: 'agent:lost-reply-agent' }, 10)).runs).toHaveLength(1);
  });

  it('an approval answer that landed with its reply lost is 503 outcome unknown naming GET /api/interactions/{id}; it is approved once', async () => {
    const made = await api.ok<{ token: string }>('POST', '/api/agents', { name: 'lost-reply-approver', tools_allow: ['echo'] });
    const kept = await post('/api/calls', { tool: 'echo', arguments: {}, idempotency_key: nonce(), wait_seconds: 0 }, made.token);
    const runId = (JSON.parse(kept.text) as { id: string }).id;
    // Parked on an approval behind the role's back, as an executor would.
    const now = Date.now();
    const claimed = await direct.runs.claim(runId, 'test', 60_000, now);
    const parked = await direct.interactions.park({
      run: runId,
      token: claimed!.token,
      kind: 'approval',
      tool: 'echo',
      argsHash: 'x',
      expiresAt: now + 600_000,
      now,
    });
    const id = parked.interaction.id;
    const reason = nonce();
    const cuts = proxy.cuts;
    proxy.cutReplyTo(reason);
    const first = await post(`/api/interactions/${id}/approve`, { reason });
    expect(proxy.cuts).toBe(cuts + 1);
    const err = (JSON.parse(first.text) as ErrorBody).error;
    expect([first.status, err.kind]).toEqual([503, 'unavailable']);
    expect(err.message).toContain('outcome unknown');
    expect(err.message).not.toMatch(/not sent|resolve_interaction failed/);
    expect(err.message).toContain(`GET /api/interactions/${id}`);

    proxy.restore();
    await reconnected();
    // It landed: the way the answer names says so, and a second answer is the 409 naming the first.
    const seen = await api.ok<{ status: string; resolution: { reason: string } }>('GET', `/api/interactions/${id}`);
    expect([seen.status, seen.resolution.reason]).toEqual(['approved', reason]);
    const second = await post(`/api/interactions/${id}/approve`, { reason: 'again' });
    expect(second.status).toBe(409);
  });

  it('a one-use trigger link whose keep ran with its reply lost is 503 accept outcome unknown; its second use is the fixed 404 and the hook ran once', async () => {
    await api.ok('POST', '/api/hooks', { name: 'lost-reply-link', topic: 'lost-reply-link', tool: 'echo' });
    const link = await api.ok<{ path: string; link: { id: string } }>('POST', '/api/hooks/lost-reply-link/links', { max_uses: 1 });
    const marker = nonce();
    const cuts = proxy.cuts;
    proxy.cutReplyTo(marker);
    const fire = () => fetch(`${api.base}${link.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ marker }) });
    const first = await fire();
    expect(proxy.cuts).toBe(cuts + 1);
    expect([first.status, await first.text()]).toEqual([503, '{"error":"accept outcome unknown"}']);

    proxy.restore();
    const runs = await eventually(
      async () => {
        const page = await direct.runs.list({ hook: 'lost-reply-link' }, 10);
        return page.runs.length > 0 ? page.runs : undefined;
      },
      30_000,
      'the lost keep to be seen',
    );
    await reconnected();
    const second = await fire();
    expect([second.status, await second.text()]).toEqual([404, '{"error":"not found"}']);
    expect(runs.map((r) => r.trigger_link)).toEqual([link.link.id]);
    expect((await direct.runs.list({ hook: 'lost-reply-link' }, 10)).runs).toHaveLength(1);
    const links = await api.ok<{ links: Array<{ id: string; uses: number }> }>('GET', '/api/hooks/lost-reply-link/links');
    expect(links.links.map((l) => [l.id, l.uses])).toEqual([[link.link.id, 1]]);
  });
});
