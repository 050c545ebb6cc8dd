import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * The operator's verbs of the CLI against one embedded server: `send` signed
 * the way each sender signs (checked by the real verifiers), bulk
 * `runs retry|discard` with a count and a confirmation, `runs replay`, and the
 * list filters (delivery id, since, until).
 */

const ADMIN = 'cli-operator-admin-token-0123456789';
const SECRETS = {
  HOOKS_SECRET_GH: 'gh-secret-for-the-cli-send-test',
  HOOKS_SECRET_STRIPE: 'whsec_stripe-secret-for-the-cli-test',
  HOOKS_SECRET_SLACK: 'slack-signing-secret-for-the-test',
  HOOKS_SECRET_SW: `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`,
};

let server: RoleProcess;
let url = '';

function hy(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: ADMIN, ...SECRETS, ...env } });
}

async function ok<T = Record<string, any>>(args: readonly string[], env: Record<string, string> = {}): Promise<T> {
  const r = await hy([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  expect(r.stderr).toBe('');
  return parseStdout<T>(r);
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

async function runsOf(hook: string, status: string, n: number): Promise<any[]> {
  return eventually(
    async () => {
      const page = await api('GET', `/api/hook-runs?hook=${hook}&status=${status}`);
      return page.runs.length >= n ? (page.runs as any[]) : undefined;
    },
    15_000,
    `${n} ${status} run(s) of hook ${hook}`,
  );
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-operator', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN}`, HOOKS_DOOR_RATE: '0', ...SECRETS });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe('send', () => {
  it('unsigned: the door keeps the event and the answer names the runs', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'snd-open', topic: 'snd-open', tool: 'echo' })]);
    const a = await ok(['send', 'snd-open', '--data', '{"n":1}']);
    expect(a).toMatchObject({ status: 'accepted', runs: 1 });
    const run = await api('GET', `/api/hook-runs/${a.run_ids[0]}`);
    expect(run).toMatchObject({ hook: 'snd-open', payload: { n: 1 } });
    const human = await hy(['send', 'snd-open', '--data', '{"n":2}']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^accepted on snd-open: 1 run \([0-9a-z]{26}\)\n$/);
  });

  it('to a topic with no hook: a warning line on stderr; unrouted list shows it and replay keeps a run of a hook registered after', async () => {
    const sent = await hy(['send', 'snd-typo', '--data', '{"n":1}']);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toBe('accepted on snd-typo: 0 runs\n');
    expect(lines(sent.stderr)).toEqual([
      "hookyard: warning: no hook is registered on topic 'snd-typo'; the event is kept under GET /api/unrouted/snd-typo (see: hookyard unrouted list)",
    ]);
    const listed = await ok(['unrouted', 'list']);
    expect(listed.topics).toEqual([expect.objectContaining({ topic: 'snd-typo', kept: 1, sample: { n: 1 } })]);
    const human = await hy(['unrouted', 'list']);
    expect(lines(human.stdout)[1]).toMatch(/^snd-typo\s+1\s+1\s/);
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'snd-typo', topic: 'snd-typo', tool: 'echo' })]);
    const replayed = await ok(['unrouted', 'replay', 'snd-typo']);
    expect(replayed).toMatchObject({ replayed: 1, runs: 1, hooks: ['snd-typo'] });
    expect(await api('GET', `/api/hook-runs/${replayed.run_ids[0]}`)).toMatchObject({ hook: 'snd-typo', door: 'api', verified: false, payload: { n: 1 } });
    expect((await ok(['unrouted', 'list'])).topics).toEqual([]);
  });

  it.each([
    ['github', 'HOOKS_SECRET_GH'],
    ['stripe', 'HOOKS_SECRET_STRIPE'],
    ['slack', 'HOOKS_SECRET_SLACK'],
    ['standard-webhooks', 'HOOKS_SECRET_SW'],
  ])('--sign %s passes the real %s verifier; a wrong secret is its 401, exit 1', async (kind, variable) => {
    const topic = `snd-${kind}`;
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: topic, topic, tool: 'echo' })]);
    await ok(['hooks', 'verifier', 'set', topic, '--kind', kind, '--secret', `env:${variable}`]);
    const data = kind === 'stripe' ? '{"id":"evt_cli_1","type":"charge.succeeded"}' : '{"hello":"world"}';
    const a = await ok(['send', topic, '--data', data, '--sign', kind, '--secret', `env:${variable}`]);
    expect(a).toMatchObject({ status: 'accepted', runs: 1 });
    if (kind === 'stripe') expect(a.delivery_id).toBe('evt_cli_1');
    const run = await api('GET', `/api/hook-runs/${a.run_ids[0]}`);
    expect(run.delivery_id).toBe(a.delivery_id);
    const wrongSecret = kind === 'standard-webhooks' ? `whsec_${Buffer.from('another-key').toString('base64')}` : 'not-the-secret';
    const bad = await hy(['send', topic, '--data', data, '--sign', kind, '--secret', 'env:WRONG'], { WRONG: wrongSecret });
    expect({ code: bad.code, stdout: bad.stdout }).toEqual({ code: 1, stdout: '' });
    expect(lines(bad.stderr)).toEqual(['hookyard: the door answered 401: {"error":"webhook verification failed"}']);
  });

  it('--delivery-id sent twice: the second is a duplicate; runs list --delivery-id finds the one run', async () => {
    const args = ['send', 'snd-github', '--data', '{"x":1}', '--sign', 'github', '--secret', 'env:HOOKS_SECRET_GH', '--delivery-id', 'cli-dup-1'];
    const first = await ok(args);
    expect(first).toMatchObject({ status: 'accepted', runs: 1, delivery_id: 'cli-dup-1' });
    expect(await ok(args)).toEqual({ status: 'duplicate', delivery_id: 'cli-dup-1' });
    const page = await ok(['runs', 'list', '--delivery-id', 'cli-dup-1']);
    expect(page.runs.map((r: any) => r.id)).toEqual(first.run_ids);
  });

  it('usage errors: exit 2 with one line', async () => {
    const cases: [string[], RegExp][] = [
      [['send', 'snd-open'], /^hookyard: the event is required: --data JSON or --file PATH/],
      [['send', 'snd-open', '--data', '{nope'], /^hookyard: --data is not valid JSON: /],
      [['send', 'snd-open', '--data', '{}', '--sign', 'github'], /^hookyard: --sign github needs --secret env:NAME or file:\/path$/],
      [['send', 'snd-open', '--data', '{}', '--sign', 'github', '--secret', 'hunter2'], /^hookyard: --secret must be a reference, env:NAME or file:\/path/],
      [
        ['send', 'snd-open', '--data', '{}', '--sign', 'github', '--secret', 'env:UNSET_VAR'],
        /^hookyard: --secret env:UNSET_VAR: the variable UNSET_VAR is not set/,
      ],
      [
        ['send', 'snd-open', '--data', '{}', '--sign', 'stripe', '--secret', 'env:HOOKS_SECRET_STRIPE', '--delivery-id', 'x'],
        /^hookyard: --delivery-id goes with --sign github or standard-webhooks/,
      ],
      [['send', 'snd-open', '--data', '{}', '--sign', 'gitlab', '--secret', 'env:X'], /^hookyard: option '--sign <sender>' argument 'gitlab' is invalid/],
    ];
    for (const [args, first] of cases) {
      const r = await hy(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(lines(r.stderr)[0]).toMatch(first);
    }
  });
});

describe('bulk retry and discard, replay', () => {
  beforeAll(async () => {
    // A condition that indexes into a string raises: bad_input, held as failed at once.
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'blk-fails', topic: 'blk', tool: 'echo', condition: { content: '.a.b' } })]);
    for (let i = 0; i < 3; i++) await ok(['send', 'blk', '--data', JSON.stringify({ a: `s${i}` })]);
    await runsOf('blk-fails', 'failed', 3);
  });

  it('counts first; without --yes and without a terminal nothing changes (exit 2); --dry-run only counts', async () => {
    const r = await hy(['runs', 'retry', '--status', 'failed', '--hook', 'blk-fails']);
    expect({ code: r.code, stdout: r.stdout, stderr: lines(r.stderr) }).toEqual({
      code: 2,
      stdout: '',
      stderr: ['hookyard: 3 runs match; pass --yes to retry them (no terminal to ask)'],
    });
    expect(await ok(['runs', 'retry', '--status', 'failed', '--hook', 'blk-fails', '--dry-run'])).toMatchObject({ dry_run: true, matched: 3, retried: 0 });
    expect((await runsOf('blk-fails', 'failed', 3)).length).toBe(3);
    const none = await hy(['runs', 'retry', '--status', 'failed', '--hook', 'blk-fails', '--since', '2h', '--until', '1h']);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: 'no runs match; nothing to retry\n' });
    const usage = await hy(['runs', 'retry', 'some-id', '--hook', 'blk-fails']);
    expect(usage.code).toBe(2);
    expect(lines(usage.stderr)).toEqual(['hookyard: runs retry: give either a run id or a filter (--hook), not both']);
    expect(lines((await hy(['runs', 'discard', '--hook', 'blk-fails'])).stderr)).toEqual([
      'hookyard: runs discard: give a run id, or a filter with --status (e.g. --status failed)',
    ]);
  });

  it('--yes retries every match (they fail again), then a bulk discard clears them', async () => {
    const r = await ok(['runs', 'retry', '--status', 'failed', '--hook', 'blk-fails', '--since', '1h', '--yes']);
    expect(r).toMatchObject({ dry_run: false, matched: 3, retried: 3, refused: 0 });
    await eventually(
      async () => {
        const runs = (await api('GET', '/api/hook-runs?hook=blk-fails')).runs as any[];
        return runs.every((x) => x.status === 'failed' && x.history.filter((h: any) => h.event === 'failed').length === 2) || undefined;
      },
      15_000,
      'the retried runs to fail again',
    );
    const human = await hy(['runs', 'discard', '--status', 'failed', '--hook', 'blk-fails', '--yes']);
    expect({ code: human.code, stdout: human.stdout }).toEqual({ code: 0, stdout: 'discarded 3 of 3 matching runs; 0 refused\n' });
    expect((await api('GET', '/api/hook-runs?hook=blk-fails&status=discarded')).runs).toHaveLength(3);
  });

  it('runs replay: a new run of the event, replay_of recorded; it runs', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'rpl', topic: 'rpl', tool: 'echo', start_expr: { content: '{v: .v}' } })]);
    const a = await ok(['send', 'rpl', '--data', '{"v":1}']);
    const [done] = await runsOf('rpl', 'succeeded', 1);
    expect(done.id).toBe(a.run_ids[0]);
    const replay = await ok(['runs', 'replay', done.id]);
    expect(replay).toMatchObject({ hook: 'rpl', replay_of: done.id, payload: { v: 1 } });
    const runs = await runsOf('rpl', 'succeeded', 2);
    expect(runs.find((r) => r.id === replay.id)).toMatchObject({ replay_of: done.id, result: { v: 1 } });
  });
});
