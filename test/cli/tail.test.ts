/**
 * `hookyard runs tail` against `hookyard serve --role all`: it follows
 * GET /api/events, prints one summary per run outcome (JSON lines with
 * --json, filtered by --hook), and stops cleanly (exit 0) on SIGINT.
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
    for (const [name, topic] of [['tail-ok', 'tail-a'], ['tail-other', 'tail-b']]) {
      const res = await fetch(`${url}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, topic, tool: 'echo' }),
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    server?.kill();
    await server?.wait();
  });

  it('prints each outcome of the hook as one JSON line and exits 0 on SIGINT', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'runs', 'tail', '--hook', 'tail-ok', '--json'], {
      env: { PATH: process.env.PATH ?? '', HOOKYARD_URL: url, HOOKYARD_TOKEN: READER },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      // The stream opens at some point after spawn: send until an outcome shows (nothing is replayed from before it opened).
      await eventually(
        async () => {
          await fetch(`${url}/universal_webhook/tail-b`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":0}' });
          await fetch(`${url}/universal_webhook/tail-a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
          return stdout.includes('\n') ? true : undefined;
        },
        20_000,
        `a line from runs tail (stderr: ${stderr})`,
      );
      const first = JSON.parse(stdout.split('\n')[0]!);
      expect(first).toMatchObject({ hook: 'tail-ok', topic: 'tail-a', status: 'succeeded', attempts: 1, error_kind: null });
      expect(Object.keys(first).sort()).toEqual(['attempts', 'created_at', 'duration_ms', 'error_kind', 'error_message', 'finished_at', 'hook', 'run_id', 'status', 'topic']);
      expect(stdout).not.toContain('tail-other');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
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
});
