'use strict';
/**
 * RESULTS.md sections of issue 36's benches: the agent door with many calls
 * waiting (waiters), cost as work grows (cost), the single-process shape
 * (single); and their rows of the Summary.
 */

const num = (v) =>
  v == null ? '–' : typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en') : v.toLocaleString('en', { maximumFractionDigits: 2 })) : String(v);
const mmm = (s) => (!s || s.median == null ? '–' : `${num(s.min)} / **${num(s.median)}** / ${num(s.max)}`);
const pass = (m) => (m == null ? '–' : m ? 'PASS' : '**MISS**');

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function waiters(s) {
  const rows = [...s.few.runs, ...s.many.runs].map((r) => [
    num(r.waiting),
    num(r.events),
    num(r.acceptedPerSecond),
    num(r.runEventsOnNats),
    num(r.ingressCpuMsPerEvent),
    num(r.quietIngressCpuMsPerSecond),
    num(r.machineBusyPercent),
  ]);
  return [
    '## 9. Agent door at scale: the ingress with many calls waiting on approvals',
    '',
    s.method,
    '',
    table(
      ['calls waiting', 'events', 'accepted/s', 'run events on NATS', 'ingress CPU ms per event', 'ingress CPU ms/s without events', 'machine busy %'],
      rows,
    ),
    '',
    `Ingress CPU per event with ${num(s.many.waiting)} calls waiting / with ${num(s.few.waiting)}: ${mmm(s.many.ingressCpuMsPerEvent)} / ${mmm(s.few.ingressCpuMsPerEvent)} ms = ` +
      `**${num(s.ratio.value)}x**; target <= ${num(s.ratio.target)}x: ${pass(s.ratio.met)}. The calls ended ${JSON.stringify(s.ended)}.`,
  ].join('\n');
}

function cost(s) {
  const queries = s.steps.length ? Object.keys(s.steps[0].lists) : [];
  return [
    '## 10. Cost as work grows: runs kept in Redis',
    '',
    `${s.method} Target ${num(s.target)} runs, reached **${num(s.reached)}**${s.reached < s.target ? ` (the ${s.fillBudgetSeconds} s fill budget stopped it; \`--list-fill-seconds\` raises it)` : ''}; fill took ${num(s.fillMs)} ms.`,
    '',
    table(
      [
        'runs filled',
        'door events/s',
        'runs/s (door + claim + echo)',
        'Redis µs of scripts per run',
        'Redis bytes per run filled (used_memory over the fill)',
        'Redis bytes per kept run (MEMORY USAGE: run hash + indexes)',
        ...queries.map((q) => `p99 ms \`${q}\``),
      ],
      s.steps.map((r) => [
        num(r.filled),
        mmm(r.acceptedPerSecond),
        mmm(r.runsPerSecond),
        mmm(r.scriptUsecPerRun),
        num(r.redisBytesPerRun),
        r.keyBytesPerRun ? `${num(r.keyBytesPerRun.total)} (${num(r.keyBytesPerRun.hash)} + ${num(r.keyBytesPerRun.indexes)})` : '–',
        ...queries.map((q) => mmm(r.lists[q].p99Ms)),
      ]),
    ),
    '',
    `From ${num(s.steps[0] && s.steps[0].filled)} to ${num(s.steps.length && s.steps[s.steps.length - 1].filled)} runs kept: ` +
      Object.entries(s.flat)
        .map(([k, v]) => `${k} ${v.verdict === 'flat' ? 'flat' : `**${v.verdict}**`}`)
        .join(', ') +
      '.',
  ].join('\n');
}

function single(s) {
  const row = (name, x) => [name, mmm(x.runsPerSecond), mmm(x.cpuMsPerRun), mmm(x.p50Ms), mmm(x.p99Ms), mmm(x.machineBusyPercent)];
  return [
    '## 11. The single-process shape: `serve --role all` on Redis + NATS beside three processes',
    '',
    s.method,
    '',
    table(
      [
        'shape',
        'runs/s (max)',
        'CPU ms per run (processes + Redis + NATS)',
        `p50 ms at ${num(s.offeredPerSecond)}/s`,
        `p99 ms at ${num(s.offeredPerSecond)}/s`,
        'machine busy %',
      ],
      [row('`serve --role all` (one process)', s.single), row('ingress + scheduler + executor', s.three)],
    ),
    '',
    `One process / three: runs/s ${num(s.runsRatio)}x, CPU per run ${num(s.cpuRatio)}x.`,
  ].join('\n');
}

/** Summary rows of these sections (the same `add` as report.js's verdicts). */
function scaleVerdicts(sections, add) {
  const w = sections.waiters;
  if (w && !w.error)
    add(
      `ingress CPU per event with ${num(w.many.waiting)} / ${num(w.few.waiting)} calls waiting`,
      `${num(w.many.ingressCpuMsPerEvent.median)} / ${num(w.few.ingressCpuMsPerEvent.median)} ms = ${num(w.ratio.value)}x`,
      `<= ${num(w.ratio.target)}x`,
      w.ratio.met,
    );
  const c = sections.cost;
  if (c && !c.error && c.steps.length) {
    const moved = Object.entries(c.flat).filter(([, v]) => v.verdict !== 'flat' && v.verdict !== '–');
    add(
      `door, claim, list pages and Redis bytes per run from ${num(c.steps[0].filled)} to ${num(c.steps[c.steps.length - 1].filled)} runs kept`,
      moved.length ? `not flat: ${moved.map(([k, v]) => `${k} ${v.verdict}`).join(', ')}` : 'flat',
      'flat (report)',
      null,
    );
  }
  const o = sections.single;
  if (o && !o.error) add('`serve --role all` / three processes, runs/s and CPU per run', `${num(o.runsRatio)}x, ${num(o.cpuRatio)}x`, '– (report)', null);
}

module.exports = { waiters, cost, single, scaleVerdicts };
