/**
 * An executor SIGKILLed in the middle of agent calls, across processes (an
 * ingress, a scheduler and two executors on the shared Redis and JetStream).
 * An agent (made with `POST /api/agents`) makes calls through `POST /api/calls`
 * with its token, of a non-crash-resumable tool: allowed ones, ones the policy
 * parks on an approval (answered through `POST /api/interactions/{id}/approve`),
 * and denied ones. The tool's service holds every call until the executor that
 * holds an approved and an allowed call in flight is SIGKILLed (and not
 * restarted: the other executor and the scheduler finish everything). More
 * calls are accepted and approved while it is dead. Then: every call ends with
 * exactly one outcome; a call the kill cut ends failed with an unknown outcome
 * (its tool started and may not be replayed) and every other allowed or approved call succeeded;
 * the tool was called exactly once per call, never twice; and the agent's
 * repeated call (same idempotency key) gets the same run and outcome without
 * calling the tool again.
 */
import { randomBytes } from 'node:crypto';
import { cleanupPrefix, LOOPBACK_NETS_ENV, uniquePrefix } from '../support/services';
import { eventually, requirePlatform, roleEnv, startRole, stopRoles, type RoleProcess } from '../support/processes';
import { Api, type RunView } from './api';
import { AgentClient, HoldingTool } from './agent-door';

jest.setTimeout(120_000);

const AGENT = 'ops-bot';
const TERMINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded', 'denied', 'cancelled']);
const INTERRUPTED = /^outcome unknown: interrupted after its tool started \(.*\); the tool may have acted and does not declare crash-resume/;

type Kind = 'allowed' | 'approve' | 'deny';
const ENV: Record<Kind, string> = { allowed: 'staging', approve: 'prod', deny: 'frozen' };

interface Planned {
  kind: Kind;
  key: string;
  args: { service: string; env: string };
  id: string;
}

interface Run extends RunView {
  interaction: string | null;
  lease: { owner: string } | null;
}

describe('agent calls across processes: an executor SIGKILLed mid-call (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2eagkill');
  const tool = new HoldingTool();
  const roles = new Map<string, RoleProcess>();
  let api: Api;
  let door: AgentClient;

  beforeAll(async () => {
    await requirePlatform();
    await tool.start();
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      // A dead executor's leases lapse within seconds; a live one renews every third of it.
      HOOKS_RUN_LEASE_SECONDS: '4',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '2',
      HOOKS_RUN_RETRY_BASE_SECONDS: '0.2',
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      // Room for every call of the test in flight on one executor: the tool holds them all before the kill.
      HOOKS_MAX_WORKERS: '40',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
    });
    // Each executor names itself in the leases it takes, so a held call's run tells which process holds it.
    const started = [
      startRole('ingress', 'ingress', env),
      startRole('scheduler', 'scheduler', env),
      startRole('executor-1', 'executor', { ...env, HOOKS_INSTANCE_ID: 'executor-1' }),
      startRole('executor-2', 'executor', { ...env, HOOKS_INSTANCE_ID: 'executor-2' }),
    ];
    for (const p of started) roles.set(p.name, p);
    await Promise.all(started.map((p) => p.waitListening(30_000)));
    api = new Api(roles.get('ingress')!.url, token);

    await api.ok('POST', '/api/tools', { name: 'deploy', endpoint: `${tool.url}/deploy`, protocol: 'langserve-direct', timeout_ms: 60_000 });
    await api.ok('PUT', '/api/approval-policy', {
      rules: [
        { name: 'agent prod deploys', tools: ['deploy'], agents: ['*'], when: '.args.env == "prod"', action: 'approve', timeout_seconds: 600 },
        { name: 'frozen', tools: ['deploy'], agents: ['*'], when: '.args.env == "frozen"', action: 'deny', message: 'deploys are frozen: ask #release' },
      ],
    });
    const made = await api.ok<{ agent: { name: string }; token: string }>('POST', '/api/agents', { name: AGENT, tools_allow: ['deploy'] });
    door = new AgentClient(api.base, made.token);
  }, 90_000);

  afterAll(async () => {
    await stopRoles([...roles.values()], 'SIGKILL');
    await tool.close();
    await cleanupPrefix(prefix);
  });

  const runOf = (id: string) => api.ok<Run>('GET', `/api/hook-runs/${id}`);
  const approve = (interaction: string) => api.ok('POST', `/api/interactions/${interaction}/approve`, { reason: 'e2e' });

  let serial = 0;
  /** Makes one call without waiting for its outcome; the door answers its run id at once. */
  async function submit(kind: Kind): Promise<Planned> {
    serial += 1;
    const p: Planned = { kind, key: `k-${serial}-${randomBytes(4).toString('hex')}`, args: { service: `svc-${serial}`, env: ENV[kind] }, id: '' };
    const { view } = await door.call({ tool: 'deploy', arguments: p.args, idempotency_key: p.key, wait_seconds: 0 });
    expect(view.id).toEqual(expect.any(String));
    p.id = view.id;
    return p;
  }

  /** Waits until every call of `calls` is parked on an approval, and answers its interaction id. */
  const parked = (calls: Planned[]) =>
    Promise.all(
      calls.map((c) =>
        eventually(
          async () => {
            const r = await runOf(c.id);
            return r.status === 'parked' && r.interaction ? r.interaction : undefined;
          },
          30_000,
          `call ${c.key} to park on its approval`,
        ),
      ),
    );

  const heldKeys = () => new Set(tool.held().map((c) => c.key));
  const untilHeld = (calls: Planned[]) =>
    eventually(async () => (calls.every((c) => heldKeys().has(c.id)) ? true : undefined), 30_000, `${calls.length} calls held at the tool`);

  it('every accepted call ends with one outcome, the tool is never called twice, and a repeated call gets the same outcome', async () => {
    const t0 = Date.now();
    const all: Planned[] = [];
    const many = async (kind: Kind, n: number) => {
      const made = await Promise.all(Array.from({ length: n }, () => submit(kind)));
      all.push(...made);
      return made;
    };

    // Wave 1, both executors alive: 16 allowed calls, 6 gated by the approval rule, 2 denied by the policy.
    const allowed1 = await many('allowed', 16);
    const gated1 = await many('approve', 6);
    await many('deny', 2);
    await untilHeld(allowed1);
    const interactions1 = await parked(gated1);
    // Half the gated calls approved now: they go to the tool and are held there with the allowed ones.
    await Promise.all(interactions1.slice(0, 3).map(approve));
    await untilHeld([...allowed1, ...gated1.slice(0, 3)]);

    // The victim: the executor holding the most calls in flight, among those holding an allowed and an approved one.
    const owners = new Map<string, Planned[]>();
    for (const c of all.filter((x) => heldKeys().has(x.id))) {
      const owner = (await runOf(c.id)).lease?.owner ?? '?';
      owners.set(owner, [...(owners.get(owner) ?? []), c]);
    }
    const [victim, cutCalls] = [...owners]
      .filter(([, cs]) => cs.some((c) => c.kind === 'allowed') && cs.some((c) => c.kind === 'approve'))
      .sort((a, b) => b[1].length - a[1].length)[0] ?? ['', []];
    expect(['executor-1', 'executor-2']).toContain(victim);
    const killedAt = Date.now();
    roles.get(victim)!.kill('SIGKILL');
    await roles.get(victim)!.wait();
    // The kernel closed its connections: the tool sees each of its calls cut, unanswered.
    await eventually(
      async () => (cutCalls.every((c) => tool.calls.some((t) => t.key === c.id && t.cut)) ? true : undefined),
      10_000,
      `the ${cutCalls.length} calls of ${victim} to be cut`,
    );
    const cut = new Set(cutCalls.map((c) => c.id));
    tool.release();

    // Wave 2, one executor dead and not restarted: more calls accepted, the rest of the approvals answered.
    await many('allowed', 6);
    const gated2 = await many('approve', 2);
    await Promise.all(interactions1.slice(3).map(approve));
    await Promise.all((await parked(gated2)).map(approve));
    // The client repeats every call at once (a retry after a cut connection): the same run, nothing kept anew.
    for (const c of all) expect((await door.call({ tool: 'deploy', arguments: c.args, idempotency_key: c.key, wait_seconds: 0 })).view.id).toBe(c.id);

    const views = await eventually(
      async () => {
        const vs = await Promise.all(all.map(async (c) => (await door.get(c.id)).view));
        return vs.every((v) => v.done) ? vs : undefined;
      },
      45_000,
      'every call to end',
    );
    const settledMs = Date.now() - killedAt;

    // Exactly one outcome each, as the agent sees it and as the run's history records it.
    for (const [i, c] of all.entries()) {
      const v = views[i]!;
      const run = await runOf(c.id);
      expect({ key: c.key, status: run.status }).toEqual({ key: c.key, status: v.status });
      expect({ key: c.key, outcomes: run.history.filter((h) => TERMINAL.has(h.event)).map((h) => h.event) }).toEqual({ key: c.key, outcomes: [v.status] });
      const expected =
        c.kind === 'deny'
          ? { status: 'denied', calls: 0 }
          : cut.has(c.id)
            ? { status: 'failed', calls: 1, error: 'outcome_unknown' }
            : { status: 'succeeded', calls: 1, result: { deployed: c.args } };
      const seen: Record<string, unknown> = { status: v.status, calls: tool.callsOf(c.id) };
      if (v.status === 'failed') seen.error = v.error?.kind;
      if (v.status === 'succeeded') seen.result = v.result;
      expect({ key: c.key, kind: c.kind, ...seen }).toEqual({ key: c.key, kind: c.kind, ...expected });
      if (cut.has(c.id)) expect(v.error!.message).toMatch(INTERRUPTED);
      if (c.kind === 'deny') expect(v.denial?.message).toBe('deploys are frozen: ask #release');
    }
    // Every tool call carried an agent call's run id, once; the agent's runs are exactly its calls.
    const ids = new Set(all.map((c) => c.id));
    expect(tool.calls.filter((t) => !ids.has(t.key)).map((t) => t.key)).toEqual([]);
    expect(tool.calls).toHaveLength(all.filter((c) => c.kind !== 'deny').length);
    expect(new Set(tool.calls.map((t) => t.key)).size).toBe(tool.calls.length);
    const page = await api.ok<{ runs: RunView[]; next_cursor: string | null }>('GET', `/api/hook-runs?agent=${AGENT}&limit=500`);
    expect(page.runs.map((r) => r.id).sort()).toEqual([...ids].sort());

    // The agent repeats every call with its key once they ended: the same run and outcome, the tool not called again.
    const before = tool.calls.length;
    for (const [i, c] of all.entries()) {
      const again = await door.call({ tool: 'deploy', arguments: c.args, idempotency_key: c.key, wait_seconds: 1 });
      expect(again.status).toBe(200);
      expect(again.view).toEqual(views[i]);
    }
    expect(tool.calls).toHaveLength(before);

    const counts = { calls: all.length, cut: cut.size, approved: all.filter((c) => c.kind === 'approve').length };
    process.stdout.write(
      `e2e agent sigkill: ${counts.calls} calls (${counts.approved} approved), ${victim} killed holding ${counts.cut}, ` +
        `all ended ${settledMs} ms after the kill, test body ${Date.now() - t0} ms\n`,
    );
    expect(cut.size).toBeGreaterThan(0);
  });
});
