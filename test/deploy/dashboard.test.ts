import { createMetrics } from '@hookyard/core';
import { dashboard, dashboardQueries, metricNames, ruleExprs } from './promql';

/** Every metric the dashboard and the alerting rules read is one Hookyard defines. */

async function definedNames(): Promise<Set<string>> {
  const { registry } = createMetrics({ defaultMetrics: true, role: 'all' });
  const names = new Set<string>();
  for (const m of await registry.getMetricsAsJSON()) {
    names.add(m.name);
    // prom-client declares MetricType a numeric enum, but the JSON carries the type's name ('histogram').
    const type = String(m.type);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(m.name + s);
  }
  registry.clear();
  return names;
}

describe('metric names in the dashboard and the rules', () => {
  test('the extractor finds metric names and skips functions, labels and keywords', () => {
    expect(
      metricNames('histogram_quantile(0.99, sum by (le, hook) (rate(a_bucket{code=~"5..", x="y"}[5m]))) / on (ns) b > 0 and max without (role) (c)'),
    ).toEqual(['a_bucket', 'b', 'c']);
  });

  test('the dashboard covers what operators asked for', () => {
    const used = new Set(dashboardQueries().flatMap((q) => metricNames(q.expr)));
    for (const m of [
      'accepted_total',
      'succeeded_total',
      'failed_total',
      'in_flight',
      'pending',
      'held_failed',
      'duration_seconds_bucket',
      'door_requests_total',
      'accept_to_start_seconds_bucket',
    ]) {
      expect(used).toContain(`tai42_hook_runs_${m}`);
    }
    const exprs = dashboardQueries()
      .map((q) => q.expr)
      .join('\n');
    expect(exprs).toMatch(/histogram_quantile\(0\.5, [^\n]*duration_seconds_bucket/);
    expect(exprs).toMatch(/histogram_quantile\(0\.99, [^\n]*duration_seconds_bucket/);
    expect(exprs).toMatch(/histogram_quantile\(0\.99, [^\n]*accept_to_start_seconds_bucket/);
    expect(exprs).toMatch(/sum by \(kind\) \(rate\(tai42_hook_runs_failed_total/);
    expect(exprs).toMatch(/sum by \(code\) \(rate\(tai42_hook_runs_door_requests_total/);
  });

  test('the dashboard reads its data source from a Prometheus datasource variable', () => {
    const d = dashboard();
    const v = d.templating.list.find((x: { type: string }) => x.type === 'datasource');
    expect(v).toMatchObject({ name: 'datasource', query: 'prometheus' });
    const walk = (ps: { datasource?: { uid?: string }; targets?: { datasource?: { uid?: string } }[]; panels?: unknown[]; type: string }[]): void => {
      for (const p of ps) {
        if (p.type !== 'row') expect(p.datasource?.uid).toBe('${datasource}');
        for (const t of p.targets ?? []) expect(t.datasource?.uid).toBe('${datasource}');
        walk((p.panels ?? []) as typeof ps);
      }
    };
    walk(d.panels);
    const ids = d.panels.map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('every metric a dashboard query or a rule reads is defined by createMetrics()', async () => {
    const defined = await definedNames();
    expect(defined).toContain('tai42_hook_runs_accepted_total');
    const used = [
      ...dashboardQueries().map((q) => ({ where: `panel "${q.panel}"`, names: metricNames(q.expr) })),
      ...ruleExprs().map((r) => ({ where: `rule ${r.rule}`, names: metricNames(r.expr) })),
    ];
    for (const u of used) {
      expect(u.names.length).toBeGreaterThan(0);
      expect({ where: u.where, undefined: u.names.filter((n) => !defined.has(n)) }).toEqual({ where: u.where, undefined: [] });
    }
  });
});
