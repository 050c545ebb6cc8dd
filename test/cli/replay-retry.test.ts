import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { idempotencyKey, startMockServer, type MockServer } from '../support/http-recorder';
import { LOOPBACK_NETS_ENV } from '../support/services';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard runs replay <id> --payload <file|->` (replay with this payload)
 * and the warning `hookyard runs retry <id>` prints for a run whose tool was
 * already called, against one embedded server and a tool that fails once.
 */

const ADMIN = 'cli-replay-admin-token-0123456789ab';
let server: RoleProcess;
let tool: MockServer;
let url = '';
let dir = '';
/** The tool answers 500 while this is true (the call left: the run is held failed, acted start). */
let failing = true;

function hy(args: readonly string[], input?: string): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: ADMIN }, input });
}

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The idempotency keys of the tool calls so far. */
const calls = () => tool.seen.filter((r) => r.method === 'POST').map(idempotencyKey);

const runOf = (id: string, status: string) =>
  eventually(
    async () => {
      const run = await api('GET', `/api/hook-runs/${id}`);
      return run.status === status ? run : undefined;
    },
    20_000,
    `run ${id} to be ${status}`,
  );

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), 'hookyard-replay-'));
  // Only the calls are answered (POST); discovery's GETs find nothing, like embedded-stop's tool.
  tool = await startMockServer((req) => {
    if (req.method !== 'POST') return { status: 404 };
    return failing ? { status: 500, body: '{"error":"boom"}' } : { body: '{"ok":true}' };
  });
  server = await startListening('cli-replay', 'all', {
    HOOKS_API_TOKENS: `admin:${ADMIN}`,
    HOOKS_DOOR_RATE: '0',
    HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
  });
  url = server.url;
  await api('POST', '/api/hooks', { name: 'rpl-edit', topic: 'rpl-edit', tool: 'echo', start_expr: { content: '{v: .v}' } });
  await api('POST', '/api/tools', { name: 'flaky', endpoint: tool.url, protocol: 'langserve-direct' });
  // The tool catalogue takes the new tool in shortly after its registration.
  await eventually(
    () => api('POST', '/api/hooks', { name: 'rty-warn', topic: 'rty-warn', tool: 'flaky' }).catch(() => undefined),
    20_000,
    'the hook of tool flaky to be registered',
  );
});

afterAll(async () => {
  await server?.stop();
  await tool?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('runs replay --payload', () => {
  it('replays with the payload of a file or of stdin: replay_of recorded, the new payload used; a bad payload is refused naming it', async () => {
    const [first] = (await api('POST', '/universal_webhook/rpl-edit', { v: 1 })).run_ids;
    await runOf(first, 'succeeded');

    const file = join(dir, 'payload.json');
    writeFileSync(file, '{"v": 2}\n');
    const human = await hy(['runs', 'replay', first, '--payload', file]);
    expect(human.code).toBe(0);
    const [, fromFile] = /^run ([0-9a-z]{26}) of hook rpl-edit replays run [0-9a-z]{26} with an edited payload: pending\n$/.exec(human.stdout) ?? [];
    expect(fromFile).toBeDefined();
    const edited = await runOf(fromFile!, 'succeeded');
    expect(edited).toMatchObject({ replay_of: first, payload: { v: 2 }, result: { v: 2 } });
    expect(edited.history[0].detail).toBe(`replay of run ${first} with an edited payload through the api door, not verified`);

    const piped = await hy(['runs', 'replay', first, '--payload', '-', '--json'], '{"v": 3}');
    expect(piped.code).toBe(0);
    const fromStdin = parseStdout<{ id: string; replay_of: string; payload: unknown }>(piped);
    expect(fromStdin).toMatchObject({ replay_of: first, payload: { v: 3 } });
    expect((await runOf(fromStdin.id, 'succeeded')).result).toEqual({ v: 3 });

    const bad = await hy(['runs', 'replay', first, '--payload', '-'], '{"v": ');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/replay refused/);
    expect(bad.stderr).toMatch(/payload is not valid JSON/);
    const missing = await hy(['runs', 'replay', first, '--payload', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(lines(missing.stderr)[0]).toMatch(/cannot read --payload .*nope\.json/);
    // Nothing was kept for the refusals: the source and the two replays only.
    expect((await api('GET', '/api/hook-runs?hook=rpl-edit')).runs).toHaveLength(3);
  });
});

describe('runs retry of a run whose tool was called', () => {
  it('warns that the tool is called again, with the idempotency key it gets; the tool then sees that key again', async () => {
    const [id] = (await api('POST', '/universal_webhook/rty-warn', { n: 1 })).run_ids;
    const failed = await runOf(id, 'failed');
    expect(failed.acted).toBe('start');
    expect(calls()).toEqual([id]);

    failing = false;
    const human = await hy(['runs', 'retry', id]);
    expect(human.code).toBe(0);
    expect(lines(human.stdout)).toEqual([
      `run ${id} of hook rty-warn is pending again`,
      `warning: its tool was already called; the retry calls it again (once the approval policy allows it) with idempotency key ${id} (extra tai42/idempotency_key)`,
    ]);
    await runOf(id, 'succeeded');
    expect(calls()).toEqual([id, id]);
  });

  it('--json carries tool_called_again; a run that never called its tool has none and no warning', async () => {
    failing = true;
    const [id] = (await api('POST', '/universal_webhook/rty-warn', { n: 2 })).run_ids;
    await runOf(id, 'failed');
    failing = false;
    const json = parseStdout<{ tool_called_again: unknown }>(await hy(['runs', 'retry', id, '--json']));
    expect(json.tool_called_again).toEqual({ idempotency_key: id, extra: 'tai42/idempotency_key' });
    await runOf(id, 'succeeded');

    // A hook whose condition raises fails before its tool is called: no warning.
    await api('POST', '/api/hooks', { name: 'rty-cond', topic: 'rty-cond', tool: 'echo', condition: { content: '.x.y' } });
    const [plain] = (await api('POST', '/universal_webhook/rty-cond', { x: 'not an object' })).run_ids;
    await runOf(plain, 'failed');
    const human = await hy(['runs', 'retry', plain]);
    expect(lines(human.stdout)).toEqual([`run ${plain} of hook rty-cond is pending again`]);
  });
});
