import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEPLOY, K8sObject, renderKustomization, requireTool, run, selects } from './support';

/** `promtool check rules` and `promtool test rules` over deploy/prometheus, and the ServiceMonitor against the Services it must find. */

const PROM = join(DEPLOY, 'prometheus');
const rules = parse(readFileSync(join(PROM, 'rules.yaml'), 'utf8')) as { groups: { rules: Record<string, any>[] }[] };
const alerts = rules.groups.flatMap((g) => g.rules).filter((r) => r.alert);

describe('deploy/prometheus', () => {
  beforeAll(() => {
    requireTool('promtool');
  });

  test('promtool check rules accepts rules.yaml', () => {
    const r = run('promtool', ['check', 'rules', 'rules.yaml'], { cwd: PROM });
    expect(r.stdout).toMatch(new RegExp(`SUCCESS: ${alerts.length} rules found`));
  });

  test('promtool test rules passes', () => {
    const r = run('promtool', ['test', 'rules', 'rules.test.yaml'], { cwd: PROM, allowFail: true });
    expect({ status: r.status, out: r.stdout + r.stderr }).toEqual({ status: 0, out: expect.stringContaining('SUCCESS') });
  });

  test('the alerts asked for exist, each with severity, summary, description and a runbook hint', () => {
    const metricsOf = (name: string) => alerts.find((a) => a.alert === name)?.expr as string;
    expect(metricsOf('HookyardRunsHeldFailed')).toMatch(/tai42_hook_runs_held_failed/);
    expect(alerts.find((a) => a.alert === 'HookyardRunsHeldFailed')!.for).toBe('5m');
    expect(metricsOf('HookyardRunsFailing')).toMatch(/rate\(tai42_hook_runs_failed_total/);
    expect(metricsOf('HookyardBacklogGrowing')).toMatch(/tai42_hook_runs_pending\[10m\]/);
    expect(metricsOf('HookyardLeasesLapsing')).toMatch(/rate\(tai42_hook_runs_lease_lapsed_total/);
    expect(metricsOf('HookyardDoorErrors')).toMatch(/tai42_hook_runs_door_requests_total\{code=~"5\.\."\}/);
    expect(metricsOf('HookyardVerificationFailures')).toMatch(/tai42_hook_runs_verification_failures_total/);
    for (const a of alerts) {
      expect([a.alert, a.labels?.severity]).toEqual([a.alert, expect.stringMatching(/^(warning|critical)$/)]);
      for (const k of ['summary', 'description', 'runbook']) expect([a.alert, k, a.annotations?.[k]]).toEqual([a.alert, k, expect.any(String)]);
    }
  });

  test('every alert is tested firing and not firing', () => {
    const tests = parse(readFileSync(join(PROM, 'rules.test.yaml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    for (const a of alerts) {
      const mine = cases.filter((c) => c.alertname === a.alert);
      expect([a.alert, mine.some((c) => c.exp_alerts.length > 0), mine.some((c) => c.exp_alerts.length === 0)]).toEqual([a.alert, true, true]);
    }
  });

  test('the ServiceMonitor selects the Service of every role, on a port the Services name', () => {
    const sm = parse(readFileSync(join(PROM, 'servicemonitor.yaml'), 'utf8')) as K8sObject;
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(sm.kind).toBe('ServiceMonitor');
    const objs = renderKustomization(join(DEPLOY, 'k8s', 'base'));
    const services = objs.filter((o) => o.kind === 'Service');
    const selected = services.filter((s) => selects(sm.spec.selector, s.metadata.labels));
    // Not the public hookyard-ingress: its port answers only the door (/metrics is on HOOKS_ADMIN_PORT).
    expect(selected.map((s) => s.metadata.name).sort()).toEqual(['hookyard-executor', 'hookyard-ingress-admin', 'hookyard-scheduler']);
    for (const e of sm.spec.endpoints) expect(e.path).toBe('/metrics');
    const endpointPorts = sm.spec.endpoints.map((e: { port: string }) => e.port);
    for (const s of selected) {
      // Exactly one endpoint per Service, so each pod is scraped once ...
      const scraped = s.spec.ports.filter((p: { name: string }) => endpointPorts.includes(p.name));
      expect({ service: s.metadata.name, scraped: scraped.length }).toEqual({ service: s.metadata.name, scraped: 1 });
      // ... on the container port that serves /metrics: the ingress's HOOKS_ADMIN_PORT, the other roles' HOOKS_HTTP_PORT.
      const d = objs.find((o) => o.kind === 'Deployment' && selects(s.spec.selector, o.spec.template.metadata.labels))!;
      const c = d.spec.template.spec.containers[0];
      const target = c.ports.find((p: { name: string }) => p.name === scraped[0].targetPort);
      const adminEnv = (c.env ?? []).find((e: { name: string }) => e.name === 'HOOKS_ADMIN_PORT');
      const want = adminEnv ? Number(adminEnv.value) : 8080;
      expect({ service: s.metadata.name, port: target?.containerPort }).toEqual({ service: s.metadata.name, port: want });
    }
  });
});
