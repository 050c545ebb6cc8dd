/**
 * An executor SIGKILLed while its tool call is in flight, across processes
 * (an ingress, a scheduler and one executor on the shared Redis and
 * JetStream). An agent calls a tool without crash-resume through
 * `POST /api/calls`, waiting for its outcome as a model's runtime does; the
 * tool's stand-in HTTP service receives the call and holds it; the executor is
 * SIGKILLed there. The tool may have acted, and nobody knows: the model must
 * read exactly that (kind outcome_unknown, retryable false, the sentence that
 * says an operator checks and never "a new key"), and the run is held. An
 * operator records what they verified (`POST /api/hook-runs/{id}/resolve`);
 * the call's answers then carry the verdict: `GET /api/calls/{id}` and the
 * same call made again with its key. The tool was called once.
 */
import { randomBytes } from 'node:crypto';
import { cleanupPrefix, LOOPBACK_NETS_ENV, uniquePrefix } from '../support/services';
import { eventually, requirePlatform, roleEnv, startRole, stopRoles, type RoleProcess } from '../support/processes';
import { Api } from '../e2e/api';
import { AgentClient, HoldingTool } from '../e2e/agent-door';

jest.setTimeout(120_000);

const AGENT = 'unknown-bot';

interface HeldRun {
  status: string;
  error: { kind: string; message: string; retryable: boolean } | null;
  result: unknown;
  lease: { owner: string } | null;
  history: Array<{ event: string; detail?: string }>;
}

describe('an executor SIGKILLed at a non-resumable tool: the model reads "unknown", an operator resolves, the repeat reads the verdict', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('unknownoutcome');
  const tool = new HoldingTool();
  const roles = new Map<string, RoleProcess>();
  let api: Api;
  let door: AgentClient;

  beforeAll(async () => {
    await requirePlatform();
    await tool.start();
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      // The dead executor's lease lapses within seconds; a live one renews every third of it.
      HOOKS_RUN_LEASE_SECONDS: '3',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '2',
      HOOKS_AGENT_WAIT_SECONDS: '60',
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_AGENT_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
    });
    const started = [startRole('ingress', 'ingress', env), startRole('scheduler', 'scheduler', env), startRole('executor', 'executor', env)];
    for (const p of started) roles.set(p.name, p);
    await Promise.all(started.map((p) => p.waitListening(30_000)));
    api = new Api(roles.get('ingress')!.url, token);
    // A tool over HTTP with no crash-resume declared: a start cut by a crash is never replayed.
    await api.ok('POST', '/api/tools', { name: 'deploy', endpoint: `${tool.url}/deploy`, protocol: 'langserve-direct', timeout_ms: 60_000 });
    const made = await api.ok<{ token: string }>('POST', '/api/agents', { name: AGENT, tools_allow: ['deploy'] });
    door = new AgentClient(api.base, made.token);
  }, 90_000);

  afterAll(async () => {
    await stopRoles([...roles.values()], 'SIGKILL');
    await tool.close();
    await cleanupPrefix(prefix);
  });

  it('holds the call as unknown, tells the model so, and answers the operator verdict to GET and to the repeated call', async () => {
    const call = { tool: 'deploy', arguments: { service: 'billing', env: 'prod' }, idempotency_key: `k-${randomBytes(6).toString('hex')}` };
    // The model's call waits for its outcome (up to HOOKS_AGENT_WAIT_SECONDS) while the tool holds it.
    const answer = door.call(call);
    const held = await eventually(async () => tool.held()[0], 30_000, 'the tool to receive the call');
    const id = held.key;
    expect(held.body).toMatchObject({ service: 'billing', env: 'prod' });
    const executor = roles.get('executor')!;
    expect((await api.ok<HeldRun>('GET', `/api/hook-runs/${id}`)).lease?.owner).toEqual(expect.any(String));

    executor.kill('SIGKILL');
    await executor.wait();
    await eventually(async () => (tool.calls.some((c) => c.key === id && c.cut) ? true : undefined), 10_000, 'the tool call to be cut');

    // The model reads the answer of the very call it made: unknown, not retryable, an operator checks.
    const first = await answer;
    expect([first.status, first.view.id, first.view.status, first.view.done]).toEqual([200, id, 'failed', true]);
    const error = first.view.error;
    expect(error).toMatchObject({ kind: 'outcome_unknown', retryable: false });
    expect(error?.message).toMatch(/^outcome unknown: interrupted after its tool started \(lease of .* lapsed during attempt 1\); the tool may have acted/);
    const sentence = first.view.sentence;
    expect(sentence).toContain('The outcome of the call to deploy is unknown');
    expect(sentence).toContain('the tool may have acted');
    expect(sentence).toContain('An operator has been asked to check what it did');
    expect(sentence).toContain('Make the same call again (same tool, same arguments)');
    expect(sentence).not.toMatch(/retry may help|again with a new idempotency key/i);
    const run = await api.ok<HeldRun>('GET', `/api/hook-runs/${id}`);
    expect(run).toMatchObject({ status: 'failed', error: { kind: 'outcome_unknown', retryable: false } });
    // A repeat before the verdict reads the same unknown, and calls nothing.
    expect((await door.call({ ...call, wait_seconds: 0 })).view).toMatchObject({ id, status: 'failed', sentence });

    // The operator checked the deploy and records that it went out.
    const verdict = { outcome: 'succeeded', result: { deployed: { service: 'billing', env: 'prod' } }, note: 'billing v2 is live in prod' };
    const resolved = await api.ok<HeldRun>('POST', `/api/hook-runs/${id}/resolve`, verdict);
    expect(resolved).toMatchObject({ status: 'succeeded', result: verdict.result, error: null });
    expect(resolved.history.at(-1)).toMatchObject({ event: 'resolved', detail: expect.stringContaining('note: billing v2 is live in prod') });

    const got = await door.get(id);
    expect(got.view).toMatchObject({ id, status: 'succeeded', done: true, result: verdict.result, sentence: 'The call to deploy succeeded.' });
    const repeat = await door.call(call);
    expect([repeat.status, repeat.view.id, repeat.view.status, repeat.view.result]).toEqual([200, id, 'succeeded', verdict.result]);
    // Once, never twice: the crash did not make the platform call the tool again, nor did the repeats.
    expect(tool.callsOf(id)).toBe(1);
    expect(tool.calls).toHaveLength(1);
    const entries = await api.ok<{ entries: Array<{ action: string; actor: { role: string }; detail: unknown }> }>(
      'GET',
      `/api/audit?target=${id}&action=run.resolve`,
    );
    expect(entries.entries).toEqual([
      expect.objectContaining({
        action: 'run.resolve',
        actor: expect.objectContaining({ role: 'admin' }),
        detail: { outcome: 'succeeded', reason: null, note: verdict.note },
      }),
    ]);
  });
});
