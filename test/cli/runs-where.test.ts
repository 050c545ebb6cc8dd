import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { hook, startHarness, TOKENS, type Harness } from '../../services/ingress/test/support/harness';
import { requireBuiltCli } from '../support/processes';
import { parseStdout, runCli } from './support';

/** `hookyard runs list --where` (the server's bounded jq search) and `hookyard runs event`, against the ingress app in this process. */
describe('hookyard runs list --where / runs event', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  let eventId = '';

  beforeAll(async () => {
    requireBuiltCli();
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ jq, deps: { limiter: null } });
    for (const name of ['wa', 'wb']) await h.stores.hooks.putHook({ ...(hook(name, 'cli-where') as any), created_at: 'x', updated_at: 'x' });
    for (let i = 0; i < 6; i++) {
      const r = await h.call('/universal_webhook/cli-where', { method: 'POST', json: { i, repo: i % 3 === 0 ? 'acme/api' : 'acme/web' } });
      if (i === 0) eventId = JSON.parse(r.text).event_id;
    }
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  const hy = (args: readonly string[]) => runCli(args, { env: { HOOKYARD_URL: h.url, HOOKYARD_TOKEN: TOKENS.reader } });

  it('--where finds the runs whose payload matches; --all continues through cut windows', async () => {
    const one = await hy(['runs', 'list', '--where', '.payload.repo == "acme/api"', '--json']);
    expect(one.code).toBe(0);
    const page = parseStdout<any>(one);
    expect(page.runs.map((r: any) => r.payload.i).sort()).toEqual([0, 0, 3, 3]);
    expect(page.scan).toEqual({ scanned: 12, matched: 4, cut: false, errors: 0 });

    // A window of 5 runs per request: the first request is cut, --all follows the cursor to the end.
    const cut = await hy(['runs', 'list', '--where', '.payload.repo == "acme/api"', '--scan', '5']);
    expect(cut.code).toBe(0);
    expect(cut.stdout).toMatch(/searched 5 runs: \d matched; the window was cut before the end of the runs/);
    expect(cut.stdout).toMatch(/more: hookyard runs list --where '\.payload\.repo == "acme\/api"' --cursor [0-9a-z]{26}/);
    const all = parseStdout<any>(await hy(['runs', 'list', '--where', '.payload.repo == "acme/api"', '--scan', '5', '--all', '--json']));
    expect(all.runs).toHaveLength(4);
    expect(all.next_cursor).toBeNull();
    expect(all.scan).toMatchObject({ scanned: 12, matched: 4, cut: false });
  });

  it('refuses a bad --where or --scan: the server quotes jq, the CLI checks what it can', async () => {
    const bad = await hy(['runs', 'list', '--where', '.payload ==']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/where "\.payload ==" does not compile/);
    const noWhere = await hy(['runs', 'list', '--scan', '10']);
    expect(noWhere.code).toBe(2);
    expect(noWhere.stderr).toMatch(/--scan bounds a --where search/);
  });

  it('runs event shows the delivery and every run it became', async () => {
    const r = await hy(['runs', 'event', eventId, '--json']);
    expect(r.code).toBe(0);
    const event = parseStdout<any>(r);
    expect(event).toMatchObject({ event_id: eventId, topic: 'cli-where', door: 'http', verified: false, payload: { i: 0, repo: 'acme/api' } });
    expect(event.runs.map((x: any) => [x.hook, x.status])).toEqual([
      ['wa', 'pending'],
      ['wb', 'pending'],
    ]);
    const human = await hy(['runs', 'event', eventId]);
    expect(human.stdout).toMatch(/runs:/);
    expect(human.stdout).toMatch(new RegExp(`${eventId}00`));
  });
});
