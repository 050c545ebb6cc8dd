/**
 * `hookyard runs tail` against `hookyard serve --role all`: it follows
 * GET /api/events, prints one summary per run event (accepted, started,
 * finished; JSON lines with --json, filtered by --hook and --event), and
 * stops cleanly (exit 0) on SIGINT.
 */
import { spawn } from 'node:child_process';
import { CLI_BIN, eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

const ADMIN = 'tail-admin-token-0123456789abcdef';
const READER = 'tail-reader-token-0123456789abcdef';

describe('hookyard runs tail', () => {
  let server: RoleProcess;
  let url: string;
  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('tail', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}` });
    url = await server.waitListening();
    for (const [name, topic] of [
      ['tail-ok', 'tail-a'],
      ['tail-other', 'tail-b'],
    ]) {
      const res = await fetch(`${url}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, topic, tool: 'echo' }),
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Runs `hookyard runs tail <args>` and sends events on both topics until `done(stdout)`; then SIGINT, expecting exit 0. */
  async function tail(args: string[], done: (stdout: string) => boolean): Promise<string> {
    const child = spawn(process.execPath, [CLI_BIN, 'runs', 'tail', ...args], {
      env: { PATH: process.env.PATH ?? '', HOOKYARD_URL: url, HOOKYARD_TOKEN: READER },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      // The stream opens at some point after spawn: send until the lines show (nothing is replayed from before it opened).
      await eventually(
        async () => {
          await fetch(`${url}/universal_webhook/tail-b`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":0}' });
          await fetch(`${url}/universal_webhook/tail-a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
          return done(stdout) ? true : undefined;
        },
        20_000,
        `lines from runs tail (stdout: ${stdout}, stderr: ${stderr})`,
      );
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    return stdout;
  }

  it("prints each event of the hook's runs as one JSON line: accepted, started, finished; exits 0 on SIGINT", async () => {
    const stdout = await tail(['--hook', 'tail-ok', '--json'], (out) => out.split('\n').some((l) => l.includes('"finished"')));
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The first run whose whole life the stream saw: its three events, in order.
    const run = lines.find((e) => e.event === 'accepted')!.run_id;
    const life = lines.filter((e) => e.run_id === run);
    expect(life.map((e) => [e.event, e.status])).toEqual([
      ['accepted', 'pending'],
      ['started', 'running'],
      ['finished', 'succeeded'],
    ]);
    expect(life[2]).toMatchObject({ hook: 'tail-ok', topic: 'tail-a', attempts: 1, error_kind: null });
    expect(Object.keys(life[0]).sort()).toEqual([
      'at',
      'attempts',
      'created_at',
      'due_at',
      'duration_ms',
      'error_kind',
      'error_message',
      'event',
      'finished_at',
      'hook',
      'run_id',
      'status',
      'topic',
    ]);
    expect(life[0].created_at).toBe(life[2].created_at);
    expect(stdout).not.toContain('tail-other');
  });

  it('--event narrows to the named types, and prints one readable line each', async () => {
    const stdout = await tail(['--event', 'accepted'], (out) => out.includes('tail-ok') && out.includes('tail-other'));
    const lines = stdout.trim().split('\n');
    for (const l of lines) expect(l).toMatch(/^\S+Z {2}accepted {9}pending {5}tail-(ok|other) {2}tail-[ab] {2}\S+ {2}attempts=0$/);
  });

  it('a bad filter is a usage error before anything is asked (exit 2)', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'runs', 'tail', '--status', 'nope'], {
      env: { PATH: process.env.PATH ?? '', HOOKYARD_URL: url, HOOKYARD_TOKEN: READER },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(2);
    expect(stderr).toMatch(/^hookyard: --status must be one of/);
  });

  it('an unknown event type is a usage error too (exit 2)', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'runs', 'tail', '--event', 'accepted,exploded'], {
      env: { PATH: process.env.PATH ?? '', HOOKYARD_URL: url, HOOKYARD_TOKEN: READER },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(2);
    expect(stderr).toMatch(/^hookyard: --event must be one or more \(comma-separated\) of accepted, started,/);
  });
});
