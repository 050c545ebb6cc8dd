import { failureFingerprint } from '@hookyard/core';
import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard runs failures` (failed runs grouped by cause) and acting on one
 * group with the bulk verbs' `--kind` and `--fingerprint`, against one
 * embedded server. One hook fails two ways with the same error kind (its
 * condition raises with a message built from the payload), so a group's
 * retry or discard must leave the other group alone.
 */

const ADMIN = 'cli-failures-admin-token-0123456789';
const READER = 'cli-failures-reader-token-0123456789';
let server: RoleProcess;
let url = '';

function hy(args: readonly string[], token = ADMIN): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: token } });
}

async function ok<T = Record<string, any>>(args: readonly string[], token = ADMIN): Promise<T> {
  const r = await hy([...args, '--json'], token);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  expect(r.stderr).toBe('');
  return parseStdout<T>(r);
}

/** The runs of hook `flaky` by status, once `n` of them are failed with `failedTimes` failed lines each. */
async function failedRuns(n: number, failedTimes = 1): Promise<any[]> {
  return eventually(
    async () => {
      const page = await ok<{ runs: any[] }>(['runs', 'list', '--hook', 'flaky', '--status', 'failed', '--all']);
      const settled = page.runs.filter((r) => r.history.filter((h: any) => h.event === 'failed').length >= failedTimes);
      return settled.length >= n ? page.runs : undefined;
    },
    20_000,
    `${n} failed run(s) of hook flaky`,
  );
}

const REFUSED = 'connect ECONNREFUSED 10.0.0.1:1';
const QUOTA = 'quota exceeded for someone@example.com';

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-failures', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}`, HOOKS_DOOR_RATE: '0' });
  url = server.url;
  // The condition raises (bad_input, held as failed at once) with a message made of the payload.
  const condition =
    'if .k == "refused" then error("connect ECONNREFUSED 10.0.\\(.n).\\(.n):80\\(.n)") else error("quota exceeded for user\\(.n)@example.com") end';
  await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'flaky', topic: 'flaky', tool: 'echo', condition: { content: condition } })]);
  for (const [k, n] of [
    ['refused', 1],
    ['quota', 2],
    ['refused', 3],
    ['refused', 4],
    ['quota', 5],
  ] as const)
    await ok(['send', 'flaky', '--data', JSON.stringify({ k, n })]);
  await failedRuns(5);
});

afterAll(async () => {
  await server?.stop();
});

describe('runs failures', () => {
  it('--json: the groups, most runs first, and the window scanned', async () => {
    const res = await ok(['runs', 'failures'], READER);
    expect(res.window).toEqual({ max: 5000, scanned: 5, cut: false, oldest: expect.any(String) });
    expect(res.group_count).toBe(2);
    expect(res.groups).toEqual([
      expect.objectContaining({ hook: 'flaky', agent: null, kind: 'bad_input', fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/), count: 3 }),
      expect.objectContaining({ hook: 'flaky', kind: 'bad_input', count: 2, pattern: expect.stringContaining('<email>') }),
    ]);
    const [refused, quota] = res.groups;
    expect(refused.pattern).toContain('ECONNREFUSED <ip>');
    expect(refused.sample_message).toContain('connect ECONNREFUSED 10.0.4.4:804');
    expect(quota.sample_message).toContain('user5@example.com');
    // The API's fingerprint is the core's, over the message as kept (a condition error may add words around it).
    expect(refused.fingerprint).toBe(failureFingerprint(refused.sample_message));
    expect(refused.fingerprint).not.toBe(quota.fingerprint);
    expect(failureFingerprint(REFUSED)).not.toBe(failureFingerprint(QUOTA));
    const limited = await ok(['runs', 'failures', '--limit', '1', '--window', '2']);
    expect({ n: limited.groups.length, window: limited.window }).toEqual({ n: 1, window: expect.objectContaining({ max: 2, scanned: 2, cut: true }) });
  });

  it('for people: a table, the window line and the command that retries the top group', async () => {
    const res = await ok(['runs', 'failures']);
    const r = await hy(['runs', 'failures']);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/^COUNT\s+HOOK\s+KIND\s+FINGERPRINT\s+LAST_SEEN\s+FIRST_SEEN\s+SAMPLE_RUN\s+PATTERN$/);
    expect(out[1]).toMatch(new RegExp(`^3\\s+flaky\\s+bad_input\\s+${res.groups[0].fingerprint}\\s`));
    expect(out[2]).toMatch(new RegExp(`^2\\s+flaky\\s+bad_input\\s+${res.groups[1].fingerprint}\\s`));
    expect(out.slice(3)).toEqual([
      '2 groups in the newest 5 failed runs',
      `retry the top group: hookyard runs retry --status failed --hook flaky --kind bad_input --fingerprint ${res.groups[0].fingerprint}`,
    ]);
    const cut = lines((await hy(['runs', 'failures', '--window', '4'])).stdout);
    expect(cut[cut.length - 2]).toMatch(/^2 groups in the newest 4 failed runs; older failed runs were not scanned \(window 4, kept since \S+\)$/);
  });

  it('bad options are usage errors (exit 2) before anything is asked', async () => {
    for (const [args, msg] of [
      [['runs', 'failures', '--kind', 'nope'], /^hookyard: --kind must be one of bad_input, .*got "nope"$/],
      [['runs', 'failures', '--window', '0'], /^hookyard: --window must be a whole number from 1 to 5000, got "0"$/],
      [['runs', 'retry', '--status', 'failed', '--fingerprint', 'ZZ'], /^hookyard: --fingerprint must be 16 lowercase hex characters/],
      [['runs', 'list', '--kind', 'oops'], /^hookyard: --kind must be one of/],
    ] as const) {
      const r = await hy(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(lines(r.stderr)[0]).toMatch(msg);
    }
  });

  it('runs list, retry and discard of one group (--kind, --fingerprint) leave the other group of the same hook and kind alone', async () => {
    const [refused, quota] = (await ok(['runs', 'failures'])).groups;
    const group = ['--status', 'failed', '--hook', 'flaky', '--kind', 'bad_input', '--fingerprint', refused.fingerprint];
    const listed = await ok(['runs', 'list', ...group]);
    expect(listed.runs.map((r: any) => r.error.message).every((m: string) => m.includes('ECONNREFUSED'))).toBe(true);
    expect(listed.runs).toHaveLength(3);

    expect(await ok(['runs', 'retry', ...group, '--dry-run'])).toMatchObject({ matched: 3, retried: 0 });
    const denied = await hy(['runs', 'retry', ...group, '--yes'], READER);
    expect(denied.code).not.toBe(0);
    expect(await ok(['runs', 'retry', ...group, '--yes'])).toMatchObject({ dry_run: false, matched: 3, retried: 3, refused: 0 });
    // The retried ones fail again (a second "failed" line); the quota group's runs were never retried.
    const after = await failedRuns(5, 1);
    await failedRuns(3, 2);
    const byFingerprint = (fp: string) => after.filter((r) => failureFingerprint(r.error.message) === fp);
    expect(byFingerprint(quota.fingerprint).map((r) => r.history.filter((h: any) => h.event === 'failed').length)).toEqual([1, 1]);

    const discarded = await hy([
      'runs',
      'discard',
      '--status',
      'failed',
      '--hook',
      'flaky',
      '--kind',
      'bad_input',
      '--fingerprint',
      quota.fingerprint,
      '--yes',
    ]);
    expect({ code: discarded.code, stdout: discarded.stdout }).toEqual({ code: 0, stdout: 'discarded 2 of 2 matching runs; 0 refused\n' });
    const left = await ok(['runs', 'failures']);
    expect(left.groups.map((g: any) => [g.fingerprint, g.count])).toEqual([[refused.fingerprint, 3]]);
  });
});
