'use strict';
/**
 * RESULTS.md sections of issue 36's benches: the single-process shape
 * (single); and its row of the Summary.
 */

const num = (v) =>
  v == null ? '–' : typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en') : v.toLocaleString('en', { maximumFractionDigits: 2 })) : String(v);
const mmm = (s) => (!s || s.median == null ? '–' : `${num(s.min)} / **${num(s.median)}** / ${num(s.max)}`);
const pass = (m) => (m == null ? '–' : m ? 'PASS' : '**MISS**');

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
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
  const o = sections.single;
  if (o && !o.error) add('`serve --role all` / three processes, runs/s and CPU per run', `${num(o.runsRatio)}x, ${num(o.cpuRatio)}x`, '– (report)', null);
}

module.exports = { single, scaleVerdicts };
