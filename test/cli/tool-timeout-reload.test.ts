/**
 * HOOKS_TOOL_TIMEOUT_SECONDS is live for the tools themselves, not only for
 * the executor's bound around a call: a spawned `hookyard serve` (the embedded
 * default) runs a real js_execution snippet that is busy for 2.5 s. Under a
 * 1 s tool timeout it is cut off and its run fails `timeout`; after a reload
 * of the config file to 20 s the same snippet finishes and its run succeeds
 * with the snippet's value (js_execution stays under its own 5 s cap). The
 * workload is clearly past the first bound and clearly within the second.
 * Every wait is for an answer or a metric.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { Api, metricValue } from '../e2e/api';

jest.setTimeout(60_000);

const TOKEN = 'timeout-admin-token-0123456789';
/** Busy (not waiting: the sandbox has no timers) until 2.5 s have passed, then its value. */
const BUSY_CODE = 'const until = Date.now() + 2500; let n = 0; while (Date.now() < until) n++; "done"';

interface RunView {
  status: string;
  result: unknown;
  error: { kind: string; message: string } | null;
}

describe('a reload of HOOKS_TOOL_TIMEOUT_SECONDS reaches a running js_execution tool', () => {
  let dir: string;
  let file: string;
  let proc: RoleProcess;
  let admin: Api;

  beforeAll(async () => {
    requireBuiltCli();
    dir = mkdtempSync(join(tmpdir(), 'hy-tool-timeout-'));
    file = join(dir, 'hooks.yaml');
    writeFileSync(file, 'HOOKS_TOOL_TIMEOUT_SECONDS: 1\n');
    proc = startRole('tool-timeout', 'all', { HOOKS_API_TOKENS: `admin:${TOKEN}`, HOOKS_CONFIG_FILE: file });
    await proc.waitListening();
    admin = new Api(proc.url, TOKEN);
    await admin.ok('POST', '/api/hooks', { name: 'busy-js', topic: 'busy', tool: 'js_execution', tool_kwargs: { code: BUSY_CODE } });
  });

  afterAll(async () => {
    await proc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends one event and waits for its run to end. */
  async function fire(): Promise<RunView> {
    const sent = await admin.sendEvent('busy', {});
    expect(sent.status).toBe(200);
    const id = (sent.body as unknown as { run_ids: string[] }).run_ids[0]!;
    return eventually(
      async () => {
        const run = await admin.ok<RunView>('GET', `/api/hook-runs/${id}`);
        return ['succeeded', 'failed'].includes(run.status) ? run : undefined;
      },
      20_000,
      `run ${id} to end`,
    );
  }

  it('cut off as timeout under 1 s; after a reload to 20 s the same snippet succeeds', async () => {
    const cut = await fire();
    expect(cut).toMatchObject({ status: 'failed', error: { kind: 'timeout' } });
    expect(cut.error!.message).toMatch(/1000 ms/);

    writeFileSync(file, 'HOOKS_TOOL_TIMEOUT_SECONDS: 20\n');
    // The file watch or this request applies it; either way the process reaches generation 2.
    const reload = await admin.call('POST', '/api/settings/reload');
    expect(reload.status).toBe(200);
    await eventually(async () => ((await metricValue(proc.url, 'tai42_hook_runs_config_generation')) === 2 ? true : undefined), 15_000, 'config generation 2');

    const done = await fire();
    expect(done).toMatchObject({ status: 'succeeded', result: { ok: true, value: 'done' }, error: null });
  });
});
