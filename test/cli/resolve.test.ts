import { randomBytes } from 'node:crypto';
import { createRedisStores, type Stores } from '@hookyard/store';
import { requireBuiltCli, roleEnv, startListening, type RoleProcess } from '../support/processes';
import { cleanupPrefix, requireNats, requireRedis, uniquePrefix } from '../support/services';
import { runCli, type CliResult } from './support';

/**
 * `hookyard runs resolve <id> --succeeded [--result JSON] | --failed --reason TEXT [--note TEXT]`
 * against an ingress on the shared Redis: the runs are held with an unknown
 * outcome behind its back (claimed, their non-resumable tool started, their
 * lease lapsed), as a crashed executor leaves them.
 */

const PARTITIONS = 4;
const token = randomBytes(24).toString('hex');
const prefix = uniquePrefix('cliresolve');
let role: RoleProcess;
let direct: Stores;

const hy = (args: readonly string[]): Promise<CliResult> => runCli(args, { env: { HOOKYARD_URL: role.url, HOOKYARD_TOKEN: token } });

/** A run of hook `resolve-cli`, held failed with an unknown outcome. */
async function held(): Promise<string> {
  const now = Date.now();
  const [kept] = await direct.runs.keepEvent({ topic: 'resolve-cli', payload: { n: 1 }, now, dispatchGraceMs: 60_000 });
  const c = await direct.runs.claim(kept!.id, 'dead-executor', 1_000, now);
  await direct.runs.act(kept!.id, c!.token, { acted: 'start', actedIds: [], input: { n: 1 }, resumable: false }, now);
  await direct.runs.sweepLapsed(now + 1_001, 100, { maxAttempts: 5, retryDelayMs: 1_000 });
  expect((await direct.runs.get(kept!.id))?.error?.kind).toBe('outcome_unknown');
  return kept!.id;
}

beforeAll(async () => {
  requireBuiltCli();
  const url = await requireRedis();
  await requireNats();
  direct = await createRedisStores({ url, prefix, partitions: PARTITIONS });
  role = await startListening('ingress', 'ingress', roleEnv(prefix, token, { HOOKS_RUN_PARTITIONS: String(PARTITIONS), HOOKS_API_RATE: '0' }));
  const res = await fetch(`${role.url}/api/hooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'resolve-cli', topic: 'resolve-cli', tool: 'echo' }),
  });
  expect(res.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await role?.stop();
  await direct?.close();
  await cleanupPrefix(prefix);
});

describe('hookyard runs resolve', () => {
  it('--succeeded --result --note ends the run succeeded with that result; the history names the note', async () => {
    const id = await held();
    const shown = await hy(['runs', 'show', id]);
    expect(shown.stdout).toContain(`hookyard runs resolve ${id} --succeeded [--result JSON] | --failed --reason TEXT [--note TEXT]`);
    const r = await hy(['runs', 'resolve', id, '--succeeded', '--result', '{"deployed":"v2"}', '--note', 'seen in the log']);
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, `run ${id} of hook resolve-cli is resolved succeeded`, '']);
    const run = await direct.runs.get(id);
    expect(run).toMatchObject({ status: 'succeeded', result: { deployed: 'v2' }, error: null });
    expect(run?.history.at(-1)).toMatchObject({ event: 'resolved', detail: 'resolved by admin as succeeded (the outcome was unknown); note: seen in the log' });
  });

  it('--failed --reason keeps it failed with the reason; --json prints the run; a second verdict is refused (exit 1, the 409 message)', async () => {
    const id = await held();
    const r = await hy(['runs', 'resolve', id, '--failed', '--reason', 'never reached prod', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, status: 'failed', error: { kind: 'operator_failed', retryable: false } });
    expect(JSON.parse(r.stdout).error.message).toContain('never reached prod');
    const again = await hy(['runs', 'resolve', id, '--succeeded']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is failed with kind operator_failed; only a run held failed with an unknown outcome');
  });

  it.each([
    [['--succeeded', '--failed'], 'give one of --succeeded or --failed'],
    [[], 'give one of --succeeded or --failed'],
    [['--failed'], '--failed needs --reason'],
    [['--failed', '--reason', 'x', '--result', '1'], '--result goes with --succeeded'],
    [['--succeeded', '--reason', 'x'], '--reason goes with --failed'],
    [['--succeeded', '--result', '{nope'], '--result must be JSON text'],
  ])('%j is a usage error (exit 2) sending nothing: the run stays held', async (flags, said) => {
    const id = await held();
    const r = await hy(['runs', 'resolve', id, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(said);
    expect((await direct.runs.get(id))?.error?.kind).toBe('outcome_unknown');
  });
});
