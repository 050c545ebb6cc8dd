import type { AnswerOf, statsSeries } from '@hookyard/api';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, query } from '../api';
import { href } from '../route';
import { ErrorBox, toApiError, useLoad } from '../util';
import type { ChartSpec } from './chart-plot';
import '../charts.css';

/** GET /api/stats/series (the store's per-minute counters), as the API declares it. */
export type StatsSeries = AnswerOf<typeof statsSeries>;
export type SeriesPoint = StatsSeries['points'][number];
export type Percentiles = SeriesPoint['accept_to_start_ms'];
type Window = StatsSeries['window'];
type Plotter = typeof import('./chart-plot');

/** How often the charts are read again while shown. */
const REFRESH_MS = 30_000;

const OUTCOMES = [
  ['accepted', 'accepted', '#0a58ca'],
  ['succeeded', 'succeeded', '#116329'],
  ['failed', 'failed', '#b42318'],
  ['skipped', 'skipped', '#8c959f'],
  ['denied', 'denied', '#8a5a00'],
] as const;
const PERCENTILES = [
  ['p50', 'p50', '#116329'],
  ['p95', 'p95', '#8a5a00'],
  ['p99', 'p99', '#b42318'],
] as const;

/** The three charts' specs from a series (x in seconds, as uPlot takes time). */
export function chartSpecs(s: StatsSeries): ChartSpec[] {
  const x = s.points.map((p) => Date.parse(p.at) / 1000);
  const per = s.step_seconds === 60 ? 'minute' : `${s.step_seconds / 60} minutes`;
  const pct = (field: 'accept_to_start_ms' | 'tool_duration_ms') =>
    PERCENTILES.map(([k, label, color]) => ({ label, color, values: s.points.map((p) => p[field][k]) }));
  return [
    { title: `Runs per ${per}`, unit: 'runs', x, lines: OUTCOMES.map(([k, label, color]) => ({ label, color, values: s.points.map((p) => p[k]) })) },
    { title: 'Accept to start (first claim)', unit: 'ms', x, lines: pct('accept_to_start_ms') },
    { title: 'Tool duration (claim to finish)', unit: 'ms', x, lines: pct('tool_duration_ms') },
  ];
}

/** Time series of the last hour or day, per hook or in total, drawn with uPlot (its own chunk), and the top failing hooks. */
export function OverviewCharts() {
  const [window, setWindow] = useState<Window>('1h');
  const [hook, setHook] = useState('');
  const series = useLoad(() => api<StatsSeries>('GET', `/api/stats/series${query({ window, hook })}`), [window, hook]);
  const [plotter, setPlotter] = useState<Plotter | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('./chart-plot').then(
      (m) => setPlotter(() => m),
      (err) => setLoadError(toApiError(err)),
    );
  }, []);
  useEffect(() => {
    const timer = setInterval(() => series.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [window, hook]);
  const s = series.data;
  const specs = useMemo(() => (s ? chartSpecs(s) : []), [s]);
  const hooks = s ? (hook && !s.hooks.includes(hook) ? [hook, ...s.hooks] : s.hooks) : [];
  return (
    <section class="charts" aria-labelledby="charts-title" data-testid="charts">
      <h2 id="charts-title">Runs over time</h2>
      <div class="chart-controls">
        <div class="toggle" role="group" aria-label="Window">
          {(['1h', '24h'] as const).map((w) => (
            <button key={w} type="button" aria-pressed={window === w} data-testid={`charts-window-${w}`} onClick={() => setWindow(w)}>
              {w === '1h' ? 'Last hour' : 'Last day'}
            </button>
          ))}
        </div>
        <label>
          Hook{' '}
          <select value={hook} data-testid="charts-hook" onChange={(e) => setHook((e.target as HTMLSelectElement).value)}>
            <option value="">All hooks</option>
            {hooks.map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </label>
        <span class="hint">
          {s ? `${s.step_seconds === 60 ? 'per minute' : 'per 15 minutes'}; percentiles are log2 bucket bounds` : series.loading ? 'loading…' : ''}
        </span>
      </div>
      <ErrorBox error={series.error ?? loadError} />
      {s && plotter ? (
        <div class="chart-grid">
          {specs.map((spec, i) => (
            <Chart key={`${s.window}:${spec.title}`} plotter={plotter} spec={spec} testid={['chart-runs', 'chart-accept', 'chart-duration'][i]} />
          ))}
        </div>
      ) : (
        !series.error && !loadError && <p class="loading">Loading the charts…</p>
      )}
      <h3>Top failing hooks</h3>
      {s && s.top_failing.length === 0 ? (
        <p class="hint" data-testid="top-failing-none">
          No failed runs in the {s.window === '1h' ? 'last hour' : 'last day'}.
        </p>
      ) : (
        <table class="top-failing" data-testid="top-failing">
          <thead>
            <tr>
              <th>Hook</th>
              <th>Failed</th>
              <th>Succeeded</th>
              <th>Accepted</th>
            </tr>
          </thead>
          <tbody>
            {(s?.top_failing ?? []).map((f) => (
              <tr key={f.hook}>
                <td>
                  <a href={href('/runs', { hook: f.hook, status: 'failed' })}>{f.hook}</a>
                </td>
                <td class="bad">{f.failed}</td>
                <td>{f.succeeded}</td>
                <td>{f.accepted}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Denials by agent</h3>
      {s && s.denied_by_agent.length === 0 ? (
        <p class="hint" data-testid="denied-by-agent-none">
          No agent call denied in the {s.window === '1h' ? 'last hour' : 'last day'}.
        </p>
      ) : (
        <table class="top-failing" data-testid="denied-by-agent">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Denied</th>
              <th>Calls</th>
            </tr>
          </thead>
          <tbody>
            {(s?.denied_by_agent ?? []).map((d) => (
              <tr key={d.agent}>
                <td>
                  <a href={href('/runs', { agent: d.agent, status: 'denied' })}>{d.agent}</a>
                </td>
                <td class="bad">{d.denied}</td>
                <td>{d.accepted}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Chart({ plotter, spec, testid }: { plotter: Plotter; spec: ChartSpec; testid: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => (el.current ? plotter.draw(el.current, spec) : undefined), [plotter, spec]);
  return <div class="chart" ref={el} data-testid={testid} />;
}
