import { agentTokenHash } from '@hookyard/core';
import { createRedisStores, type Stores } from '@hookyard/store';
import { eventually, requireBuiltCli, requirePlatform, roleEnv, startListening, type RoleProcess } from '../support/processes';
import { deleteRedisKeys, REDIS_URL, uniquePrefix } from '../support/services';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard call` against a real ingress on Redis and JetStream, as an agent.
 * No executor runs: the test is the executor, through the same Redis store
 * (claim, then the outcome), so every exit code is driven exactly.
 */
const ADMIN = 'call-cli-admin-token-0123456789abcdef';
const AGENT = 'hya_call-cli-agent-token-0123456789abcdef';
const prefix = uniquePrefix('clicall');
let ingress: RoleProcess;
let stores: Stores;

function hy(args: readonly string[], token = AGENT): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: ingress.url, HOOKYARD_TOKEN: token } });
}

/** The run the agent's call with `key` kept (the store is the truth). */
async function runOfKey(key: string): Promise<string> {
  return eventually(
    async () =>
      (await stores.runs.list({ hook: 'agent:cli-bot' }, 100)).runs.find((r) => (r.payload as { idempotency_key?: string }).idempotency_key === key)?.id,
    5000,
    `the run of key ${key}`,
  );
}

async function claimed(id: string): Promise<number> {
  const c = await stores.runs.claim(id, 'cli-test-executor', 30_000, Date.now());
  if (!c) throw new Error(`run ${id} could not be claimed`);
  return c.token;
}

beforeAll(async () => {
  requireBuiltCli();
  await requirePlatform();
  stores = await createRedisStores({ url: REDIS_URL, prefix, partitions: 4 });
  await stores.agents.create({ name: 'cli-bot', description: null, tools_allow: ['echo', 'wait'], tokenHash: agentTokenHash(AGENT) }, Date.now());
  ingress = await startListening('call-cli', 'ingress', roleEnv(prefix, ADMIN, { HOOKS_AGENT_WAIT_SECONDS: '5', HOOKS_DOOR_RATE: '0' }));
}, 30_000);

afterAll(async () => {
  await ingress?.stop();
  await stores?.close();
  await deleteRedisKeys(prefix);
});

describe('hookyard call', () => {
  it('still waiting: exit 5 with the run id and how to repeat; repeated once it succeeded: exit 0 with the result', async () => {
    const first = await hy(['call', 'echo', '--args', `{"text":"it's me"}`, '--wait', '0', '--key', 'k-1']);
    expect(first.code).toBe(5);
    const id = await runOfKey('k-1');
    expect(lines(first.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^hookyard: call ${id} pending: The call to echo \\(${id}\\) is accepted and waits for an executor`)),
      `hookyard: repeat it for the outcome: hookyard call echo --args '{"text":"it'\\''s me"}' --key k-1`,
    ]);
    await stores.runs.complete(id, await claimed(id), 'succeeded', { echoed: "it's me" }, Date.now());
    const again = await hy(['call', 'echo', '--args', `{"text":"it's me"}`, '--key', 'k-1']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ echoed: "it's me" });
    const json = await hy(['call', 'echo', '--args', `{"text":"it's me"}`, '--key', 'k-1', '--json']);
    expect(parseStdout(json)).toMatchObject({ id, status: 'succeeded', done: true, result: { echoed: "it's me" } });
  });

  it('the repeat hint keeps the connection flags as given: --url, and --token as the variable holding it, never its value', async () => {
    // HOOKYARD_TOKEN holds the admin token: a repeat without the agent's --token would be refused (403).
    const env = { HOOKYARD_URL: 'http://127.0.0.1:9', HOOKYARD_TOKEN: ADMIN, CI_AGENT_TOKEN: AGENT };
    const byVariable = await runCli(['--url', ingress.url, '--token', AGENT, 'call', 'echo', '--args', '{"n":1}', '--wait', '0', '--key', 'k-tok-1'], { env });
    expect(byVariable.code).toBe(5);
    expect(lines(byVariable.stderr)[1]).toBe(
      `hookyard: repeat it for the outcome: hookyard call echo --args '{"n":1}' --key k-tok-1 --url ${ingress.url} --token "$CI_AGENT_TOKEN"`,
    );
    // A token no exported variable holds: a placeholder, the secret never printed.
    const byValue = await runCli(['call', 'echo', '--args', '{"n":2}', '--wait', '0', '--key', 'k-tok-2', '--token', AGENT], {
      env: { HOOKYARD_URL: ingress.url, HOOKYARD_TOKEN: ADMIN },
    });
    expect(byValue.code).toBe(5);
    expect(lines(byValue.stderr)[1]).toBe(
      `hookyard: repeat it for the outcome: hookyard call echo --args '{"n":2}' --key k-tok-2 --token '<your agent token>'`,
    );
    expect(byValue.stderr).not.toContain(AGENT);
  });

  it('denied: exit 4 with the sentence; failed: exit 6 saying whether a retry helps', async () => {
    // Arguments of their own: an identical call would join the open call of the test above (issue 34) and keep no run of this key.
    const denied = hy(['call', 'echo', '--args', '{"n":11}', '--key', 'k-deny']);
    const d = await runOfKey('k-deny');
    await stores.runs.complete(d, await claimed(d), 'denied', { message: 'not today', rule: 'calendar', policy_version: 1 }, Date.now());
    const r = await denied;
    expect(r.code).toBe(4);
    expect(lines(r.stderr)).toEqual([`hookyard: call ${d} denied: not today. Please ask for clarification or try a different, less destructive approach.`]);

    const failing = hy(['call', 'echo', '--args', '{"n":12}', '--key', 'k-fail']);
    const f = await runOfKey('k-fail');
    await stores.runs.fail(f, await claimed(f), { kind: 'bad_input', message: 'text is required' }, Date.now());
    const rf = await failing;
    expect(rf.code).toBe(6);
    expect(rf.stderr).toContain('failed (bad_input): text is required. Retrying the same call will not help');
  });

  it('a tool the agent may not call is refused (exit 1), bad usage exit 2, a management token 403', async () => {
    const shell = await hy(['call', 'local_shell', '--args', '{}']);
    expect(shell.code).toBe(1);
    expect(lines(shell.stderr)).toEqual(["hookyard: 404 not_found: tool 'local_shell' is not available to agent 'cli-bot'"]);
    expect((await hy(['call', 'echo', '--args', '[1]'])).code).toBe(2);
    expect((await hy(['call', 'echo', '--wait', 'soon'])).code).toBe(2);
    const admin = await hy(['call', 'echo'], ADMIN);
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain('403 forbidden');
  });
});
