/**
 * End to end on a three-master Redis Cluster: ingress, scheduler and two
 * executors as processes with HOOKS_REDIS_CLUSTER=true (NATS: the shared
 * server, isolated by prefix). Every event is kept across the masters and
 * every run succeeds exactly once.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { deleteStreams, requireNats, uniquePrefix } from '../support/services';
import { eventually, requireBuiltCli, roleEnv, PLATFORM_ROLES, startRoles, stopRoles, type RoleProcess } from '../support/processes';
import { keysPerNode, startRedisCluster, type RedisCluster } from '../support/clusters';
import { Api, pool } from '../e2e/api';

jest.setTimeout(180_000);

const EVENTS = 300;
const SIGNED = 60;
const GITHUB_SECRET = randomBytes(16).toString('hex');

describe('end to end on a Redis Cluster', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('rc');
  const procs: RoleProcess[] = [];
  let cluster: RedisCluster | undefined;
  let natsUrl = '';
  let api: Api;

  beforeAll(async () => {
    requireBuiltCli();
    natsUrl = await requireNats();
    cluster = await startRedisCluster();
    const env = roleEnv(prefix, token, {
      HOOKS_REDIS_URL: cluster.url,
      HOOKS_REDIS_CLUSTER: 'true',
      HOOKS_RUN_PARTITIONS: '6',
      HOOKS_NATS_URL: natsUrl,
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '3',
      HOOKS_DOOR_RATE: '1000',
      HOOKS_DOOR_BURST: '2000',
      HOOKS_SECRET_RC_GITHUB: GITHUB_SECRET,
    });
    procs.push(...(await startRoles(env, PLATFORM_ROLES)));
    api = new Api(procs[0]!.url, token);
  }, 90_000);

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await cluster?.stop();
    await deleteStreams(prefix, natsUrl);
  }, 30_000);

  it(`keeps ${EVENTS} events over the masters (a verified topic too) and runs each once`, async () => {
    await api.ok('POST', '/api/hooks', { name: 'rc-echo', topic: 'orders', tool: 'echo', start_expr: { content: '{n: .n}' } });
    await api.ok('POST', '/api/hooks', { name: 'rc-echo-2', topic: 'orders', tool: 'echo', start_expr: { content: '{m: .n}' } });
    await pool(EVENTS, 16, async (i) => {
      expect(await api.sendEvent('orders', { n: i })).toMatchObject({ status: 200, body: { status: 'accepted', runs: 2 } });
    });
    // A github-verified topic: the delivery claim and the keep in one script, on a slot of their own.
    await api.ok('POST', '/api/hooks', { name: 'rc-signed', topic: 'signed', tool: 'echo', start_expr: { content: '{n: .n}' } });
    await api.ok('PUT', '/api/hooks/topics/signed/verifier', { kind: 'github', secrets: ['env:HOOKS_SECRET_RC_GITHUB'] });
    const signed = async (n: number, delivery: string) => {
      const body = JSON.stringify({ n });
      const res = await fetch(`${api.base}/universal_webhook/signed`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-github-delivery': delivery,
          'x-hub-signature-256': `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      return { status: res.status, body: await res.json() };
    };
    await pool(SIGNED, 8, async (i) => {
      const delivery = randomUUID();
      expect(await signed(i, delivery)).toMatchObject({ status: 200, body: { status: 'accepted', runs: 1 } });
      expect(await signed(i, delivery)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    });
    const signedRuns = await eventually(
      async () => {
        const all = await api.allRuns('rc-signed');
        return all.length === SIGNED && all.every((r) => r.status === 'succeeded') ? all : undefined;
      },
      60_000,
      `${SIGNED} signed runs to succeed`,
    );
    expect(new Set(signedRuns.map((r) => (r.result as { n: number }).n)).size).toBe(SIGNED);
    const runs = await eventually(
      async () => {
        const all = [...(await api.allRuns('rc-echo')), ...(await api.allRuns('rc-echo-2'))];
        return all.length === 2 * EVENTS && all.every((r) => r.status === 'succeeded') ? all : undefined;
      },
      120_000,
      `${2 * EVENTS} runs to succeed`,
    );
    expect(runs.every((r) => r.attempts === 1)).toBe(true);
    expect(new Set(runs.filter((r) => r.hook === 'rc-echo').map((r) => (r.result as { n: number }).n)).size).toBe(EVENTS);
    // The runs are spread over all three masters, not piled on one.
    expect((await keysPerNode(cluster!)).every((k) => k > 0)).toBe(true);
    // No role logged a cross-slot refusal or a redirection it could not follow.
    const bad = procs.flatMap((p) => p.lines.filter((l) => /CROSSSLOT|MOVED|ASK |TRYAGAIN|CLUSTERDOWN/.test(l)));
    expect(bad).toEqual([]);
  });
});
