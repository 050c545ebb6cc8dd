/**
 * The dashboard and the alert rules against a live Prometheus: `hookyard
 * serve --role all` (embedded) scraped every second by a real `prometheus`
 * on its admin port (HOOKS_ADMIN_PORT, as deploy/k8s runs the ingress; events
 * go to the door port, which has no /metrics), with hooks that succeed, skip and fail, a delivery refused by a verifier
 * and a few door answers. Every dashboard query (variables substituted) and
 * every metric a rule reads must come back with data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { freePort } from '../support/servers';
import { Api } from '../e2e/api';
import { dashboardQueries, metricNames, ruleExprs } from './promql';
import { requireTool } from './support';

jest.setTimeout(180_000);

/** The dashboard's variables as an "All" selection and a short rate window fit for a 1 s scrape. */
function substitute(expr: string): string {
  return expr.replace(/\$__rate_interval/g, '15s').replace(/\$\{?namespace\}?/g, '.*');
}

describe('dashboard and rules on a live Prometheus', () => {
  const token = randomBytes(24).toString('hex');
  const secret = randomBytes(24).toString('hex');
  let dir: string;
  let hookyard: RoleProcess | undefined;
  let prometheus: ChildProcess | undefined;
  const promLog: string[] = [];
  let promUrl: string;
  let api: Api;
  let publicDoor: Api;

  beforeAll(async () => {
    requireBuiltCli();
    const binary = requireTool('prometheus');
    dir = mkdtempSync(join(tmpdir(), 'hookyard-prom-'));
    hookyard = await startListening('all', 'all', {
      HOOKS_API_TOKENS: `admin:${token}`,
      HOOKS_HTTP_HOST: '127.0.0.1',
      HOOKS_ADMIN_PORT: '0',
      HOOKS_RUN_SWEEP_SECONDS: '0.5',
      HOOKS_SECRET_HOOKYARD_LIVE_SECRET: secret,
    });
    const url = hookyard.url;
    const adminUrl = hookyard.logs().find((r) => typeof r.adminUrl === 'string')?.adminUrl as string;
    expect(adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    api = new Api(adminUrl, token);
    publicDoor = new Api(url, token);
    // The door's port has no /metrics: a scrape there would be a target down.
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    const target = new URL(adminUrl).host;
    const port = await freePort();
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: hookyard',
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      binary,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (c: Buffer) => promLog.push(c.toString()));
    prometheus.stderr?.on('data', (c: Buffer) => promLog.push(c.toString()));
    promUrl = `http://127.0.0.1:${port}`;
    await eventually(
      async () => {
        if (prometheus!.exitCode !== null) throw new Error(`prometheus exited ${prometheus!.exitCode}: ${promLog.join('')}`);
        return (await fetch(`${promUrl}/-/ready`)).ok ? true : undefined;
      },
      30_000,
      'prometheus to be ready',
    );
  });

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGKILL');
      await exited;
    }
    await hookyard?.stop('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every dashboard query and every rule metric with data', async () => {
    await api.ok('POST', '/api/hooks', { name: 'live-echo', topic: 'live', tool: 'echo', start_expr: { content: '{n: .n}' } });
    await api.ok('POST', '/api/hooks', { name: 'live-skip', topic: 'live', tool: 'echo', condition: { content: '.n < 0' } });
    await api.ok('POST', '/api/hooks', { name: 'live-raise', topic: 'live', tool: 'echo', condition: { content: 'error("condition raises on purpose")' } });
    await api.ok('PUT', '/api/hooks/topics/signed/verifier', { kind: 'shared_secret', secrets: ['env:HOOKS_SECRET_HOOKYARD_LIVE_SECRET'] });

    // Events keep coming while Prometheus scrapes, so rates over the window see them.
    let sent = 0;
    const door = async () => {
      await publicDoor.sendEvent('live', { n: sent++ });
      const bad = await fetch(`${publicDoor.base}/universal_webhook/signed`, {
        method: 'POST',
        headers: { 'x-webhook-secret': 'wrong', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(bad.status).toBe(401);
    };
    const queries = [
      ...dashboardQueries().map((q) => ({ what: `dashboard "${q.panel}"`, expr: substitute(q.expr) })),
      ...ruleExprs().flatMap((r) => metricNames(r.expr).map((m) => ({ what: `rule ${r.rule}`, expr: m }))),
    ];
    expect(queries.length).toBeGreaterThan(20);

    let empty: string[] = [];
    try {
      await eventually(
        async () => {
          await door();
          empty = [];
          for (const q of queries) {
            const res = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: q.expr }).toString()}`);
            const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
            if (body.status !== 'success') throw new Error(`${q.what}: ${q.expr} -> ${body.error}`);
            if (!body.data || body.data.result.length === 0) empty.push(`${q.what}: ${q.expr}`);
          }
          return empty.length === 0 ? true : undefined;
        },
        90_000,
        'every query to return data',
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\nstill empty:\n${empty.join('\n')}`, { cause: err });
    }

    // The three hooks really produced the three outcomes the panels show.
    const outcomes = async (hook: string) => new Set((await api.allRuns(hook)).map((r) => r.status));
    expect(await outcomes('live-echo')).toContain('succeeded');
    expect(await outcomes('live-skip')).toContain('skipped');
    expect(await outcomes('live-raise')).toContain('failed');
  });
});
