/**
 * HOOKS_MAX_WORKERS changed live on a separate executor process (Redis +
 * JetStream): the executor serves 2 at once; its config file is edited to 8;
 * the 2 calls in flight are not disturbed and the next runs admitted fill 8,
 * counted at a tool server that holds every call until the test releases it.
 * Then a bad value in the file is refused and reported, nothing applied.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, startRole, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { idempotencyKey, startMockServer, type MockServer, type Reply } from '../support/http-recorder';
import { Api, metricValue } from './api';

jest.setTimeout(120_000);

describe('HOOKS_MAX_WORKERS reloaded on a running executor', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2elive');
  const dir = mkdtempSync(join(tmpdir(), 'hy-live-workers-'));
  const file = join(dir, 'executor.yaml');
  const procs: RoleProcess[] = [];
  let executor: RoleProcess;
  let api: Api;
  let server: MockServer | undefined;
  /** The calls the tool holds open, by idempotency key: each answers when its function is called. */
  const held = new Map<string, (reply: Reply) => void>();
  let maxHeld = 0;
  const seen: string[] = [];

  /** Writes the file as an editor does: a new file renamed over the old one. */
  const edit = (text: string) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };

  beforeAll(async () => {
    await requirePlatform();
    server = await startMockServer((req) => {
      if (req.method !== 'POST') return { status: 404 };
      const key = idempotencyKey(req);
      seen.push(key);
      return new Promise<Reply>((answer) => {
        held.set(key, answer);
        maxHeld = Math.max(maxHeld, held.size);
      });
    });
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.5',
      HOOKS_DOOR_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
    });
    edit('HOOKS_MAX_WORKERS: 2\n');
    const ingress = startRole('ingress', 'ingress', env);
    executor = startRole('executor', 'executor', { ...env, HOOKS_CONFIG_FILE: file });
    procs.push(ingress, startRole('scheduler', 'scheduler', env), executor);
    await Promise.all(procs.map((p) => p.waitListening()));
    api = new Api(ingress.url, token);
    await api.ok('POST', '/api/tools', {
      name: 'held',
      endpoint: server.url,
      method: 'POST',
      timeout_ms: 60_000,
      headers: {},
      body_properties: {},
      protocol: 'langserve-direct',
    });
    await api.ok('POST', '/api/hooks', { name: 'live-held', topic: 'held', tool: 'held', tool_kwargs: {} });
  });

  afterAll(async () => {
    for (const answer of held.values()) answer({ body: '{}' });
    await stopRoles(procs, 'SIGKILL');
    await server?.close();
    await cleanupPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('2 at once; edited to 8, the 2 in flight go on and the next runs admitted fill 8; a bad value changes nothing', async () => {
    for (let i = 0; i < 12; i += 1) expect((await api.sendEvent('held', { i })).body.runs).toBe(1);
    await eventually(async () => (held.size === 2 ? true : undefined), 30_000, '2 calls held at the tool');
    // 10 runs wait for a slot while 2 are held: the executor admits no third.
    await eventually(
      async () => ((await metricValue(executor.url, 'tai42_hook_runs_in_flight')) === 2 ? true : undefined),
      10_000,
      'the executor to report 2 in flight',
    );
    const first = [...held.keys()];
    expect(maxHeld).toBe(2);

    const editedAt = Date.now();
    edit('HOOKS_MAX_WORKERS: 8\n');
    const reloaded = await eventually(
      async () => executor.logs().find((r) => String(r.msg).startsWith('settings reloaded (generation 2)')),
      15_000,
      'the executor to reload its file',
    );
    expect(reloaded).toMatchObject({ role: 'executor', trigger: 'file', applied: [{ variable: 'HOOKS_MAX_WORKERS', from: 2, to: 8 }], restart_needed: [] });
    await eventually(async () => (held.size === 8 ? true : undefined), 30_000, '8 calls held at the tool');
    const filledAt = Date.now();
    process.stdout.write(
      `live workers: file edit -> reload applied ${Date.parse(String(reloaded.time)) - editedAt} ms (200 ms debounce), -> 8 calls held ${filledAt - editedAt} ms\n`,
    );
    // The first two were never cancelled or called again: still held, each seen once.
    for (const key of first) expect(held.has(key)).toBe(true);
    expect(seen.filter((k) => first.includes(k))).toHaveLength(2);
    expect(maxHeld).toBe(8);

    edit('HOOKS_MAX_WORKERS: many\n');
    const refused = await eventually(
      async () => executor.logs().find((r) => String(r.msg).startsWith('settings reload refused')),
      15_000,
      'the executor to refuse the bad value',
    );
    expect(refused).toMatchObject({
      trigger: 'file',
      variable: 'HOOKS_MAX_WORKERS',
      msg: 'settings reload refused, nothing applied: HOOKS_MAX_WORKERS: expected a number, got "many"',
    });
    expect(await metricValue(executor.url, 'tai42_hook_runs_config_generation')).toBe(2);

    // Release everything: all 12 succeed, each called once, and no more than 8 were ever held at once.
    const release = () => {
      for (const [key, answer] of held) {
        held.delete(key);
        answer({ body: JSON.stringify({ done: key }) });
      }
    };
    const runs = await eventually(
      async () => {
        release();
        const all = await api.allRuns('live-held');
        return all.length === 12 && all.every((r) => r.status === 'succeeded') ? all : undefined;
      },
      60_000,
      'all 12 runs to succeed',
    );
    expect(runs.every((r) => r.attempts === 1)).toBe(true);
    expect(new Set(seen).size).toBe(12);
    expect(seen).toHaveLength(12);
    expect(maxHeld).toBe(8);
  });
});
