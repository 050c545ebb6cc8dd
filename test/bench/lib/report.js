'use strict';
/** Renders results.json as the Markdown of RESULTS.md. */
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');
const { BENCH_DIR } = require('./common');
const scale = require('./report-scale');

const num = (v) =>
  v == null ? '–' : typeof v === 'number' ? (Number.isInteger(v) ? v.toLocaleString('en') : v.toLocaleString('en', { maximumFractionDigits: 2 })) : String(v);
/** "min / **median** / max" of a summary. */
const mmm = (s) => (!s || s.median == null ? '–' : `${num(s.min)} / **${num(s.median)}** / ${num(s.max)}`);
const pass = (m) => (m == null ? '–' : m ? 'PASS' : '**MISS**');
/** Targets the report checks (issue 36's p99 ratio, issue 24's p50; the sections compute the e2e ones themselves). */
const P99_TARGET = 3;
const P50_TARGET = 5;
const RSS_TARGET_MIB = 150;
/** Issue 36: a role's RSS after start, before any load. */
const IDLE_RSS_TARGET_MIB = 90;
/** "No upward drift": the last soak window's median RSS at most this many percent above the first's. */
const DRIFT_TARGET_PERCENT = 5;
/** "Parked runs cost no executor memory beyond their ids": at most this many bytes of executor heap per parked run. */
const PARKED_TARGET_BYTES = 512;
/**
 * The roles whose peak RSS is held to RSS_TARGET_MIB: the processes of the three-role stacks under the
 * end-to-end load (e2e, growth's fan-out, memory); the door section's ingress at full speed is `door-ingress`, shown beside them.
 */
const ROLES = ['hookyard-ingress', 'hookyard-scheduler', 'hookyard-executor'];

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function errorBlock(name, s) {
  return `### ${name}\n\nThe section failed:\n\n\`\`\`\n${s.error}\n\`\`\`\n`;
}

function door(s) {
  return [
    '## 1. Door: events accepted per second',
    '',
    s.method,
    '',
    table(
      ['system', 'events/s', 'p50 ms', 'p99 ms'],
      [
        ['Hookyard ingress (keep + publish)', mmm(s.hookyard.perSecond), mmm(s.hookyard.p50Ms), mmm(s.hookyard.p99Ms)],
        ['ceiling (node:http + one EVAL)', mmm(s.ceiling.perSecond), mmm(s.ceiling.p50Ms), mmm(s.ceiling.p99Ms)],
      ],
    ),
    '',
    `Ratio door/ceiling (medians): **${num(s.ratio.value)}** (per pair ${mmm(s.ratio.pairs)}); target >= ${num(s.ratio.target)}: ${pass(s.ratio.met)}.`,
    '',
    cpuBlock(
      'request',
      [
        ['Hookyard', s.hookyard],
        ['ceiling', s.ceiling],
      ],
      'cpuMsPerRequest',
    ),
    '',
    redisBlock('request', [
      ['Hookyard', s.hookyard.redisPerRequest],
      ['ceiling', s.ceiling.redisPerRequest],
    ]),
  ].join('\n');
}

/** Redis commands per request/run (INFO commandstats delta of the last run; the server is shared). */
function redisBlock(unit, rows) {
  const have = rows.filter(([, r]) => r && Object.keys(r).length);
  if (!have.length) return '';
  return [
    `Redis commands per ${unit} (INFO commandstats over the last run; calls and server µs):`,
    '',
    table(
      ['system', 'commands'],
      have.map(([name, r]) => [
        name,
        Object.entries(r)
          .map(([cmd, v]) => `${cmd} ${v.callsPer} (${v.usecPer} µs)`)
          .join(', '),
      ]),
    ),
  ].join('\n');
}

/** CPU ms per request (or run) by process, medians over the runs, from /proc. */
function cpuBlock(unit, rows, field) {
  const have = rows.filter(([, r]) => r && r[field]);
  if (!have.length) return '';
  const keys = [...new Set(have.flatMap(([, r]) => Object.keys(r[field])))];
  return [
    `CPU ms per ${unit} by process (from /proc; \`other\` is everything else the machine ran meanwhile, e.g. other users' jobs), and how busy both cores were:`,
    '',
    table(
      ['system', ...keys, 'sum', 'machine busy %'],
      have.map(([name, r]) => [
        name,
        ...keys.map((k) => num(r[field][k])),
        num(Math.round(keys.filter((k) => k !== 'other').reduce((a, k) => a + (r[field][k] || 0), 0) * 1000) / 1000) + ' (w/o other)',
        mmm(r.machineBusyPercent),
      ]),
    ),
  ].join('\n');
}

function e2e(s) {
  const lat = s.latency || [];
  const stage = (x, k) => (x.stages ? `${num(x.stages[k].p50)} / ${num(x.stages[k].p99)}` : '–');
  return [
    '## 2. End to end: runs completed per second',
    '',
    s.method,
    '',
    table(
      ['system', 'runs/s (max)', 'events accepted/s'],
      [
        ['Hookyard (ingress + scheduler + executor)', mmm(s.hookyard.runsPerSecond), mmm(s.hookyard.acceptedPerSecond)],
        ['express + BullMQ', mmm(s.bullmq.runsPerSecond), mmm(s.bullmq.acceptedPerSecond)],
      ],
    ),
    '',
    `Ratio Hookyard/BullMQ runs/s (medians): **${num(s.ratio.value)}x** (per pair ${mmm(s.ratio.pairs)}); target >= ${num(s.ratio.target)}x: ${pass(s.ratio.met)}.`,
    '',
    ...(s.cpuPerRun
      ? [
          `CPU ms per run, Hookyard's processes + Redis + NATS ${mmm(s.cpuPerRun.hookyardMs)} against BullMQ's app + worker + Redis ${mmm(s.cpuPerRun.bullmqMs)} ` +
            `(throughput runs; not the load generator): **${num(s.cpuPerRun.value)}x** (per pair ${mmm(s.cpuPerRun.pairs)}); target <= ${num(s.cpuPerRun.target)}x: ${pass(s.cpuPerRun.met)}.`,
          '',
        ]
      : []),
    ...(s.perRun
      ? [
          `Per started run (Hookyard's throughput runs): Redis scripts (EVALSHA + EVAL, the sweeps' included) ${mmm(s.perRun.scripts.value)} (target <= ${s.perRun.scripts.target}: ${pass(s.perRun.scripts.met)}), ` +
            `Redis µs in them ${mmm(s.perRun.scriptUsec.value)} (target <= ${s.perRun.scriptUsec.target}: ${pass(s.perRun.scriptUsec.met)}), ` +
            `executor CPU ${mmm(s.perRun.executorCpuMs.value)} ms (target <= ${s.perRun.executorCpuMs.target}: ${pass(s.perRun.executorCpuMs.met)}).`,
          '',
        ]
      : []),
    'Accept-to-start at constant rates (ms):',
    '',
    table(
      [
        'rate',
        'Hookyard p50',
        'Hookyard p99',
        'Hookyard max',
        'BullMQ p50',
        'BullMQ p99',
        'BullMQ max',
        'p99 Hookyard / BullMQ',
        `<= ${P99_TARGET}x`,
        `p50 <= ${P50_TARGET} ms`,
      ],
      lat.map((x) => [
        `${num(x.fraction * 100)} % (${num(x.offeredPerSecond)}/s)`,
        mmm(x.hookyard.p50Ms),
        mmm(x.hookyard.p99Ms),
        mmm(x.hookyard.maxMs),
        mmm(x.bullmq.p50Ms),
        mmm(x.bullmq.p99Ms),
        mmm(x.bullmq.maxMs),
        `${num(x.p99Ratio.value)}x`,
        pass(x.p99Ratio.met),
        pass(x.p50.met),
      ]),
    ),
    '',
    "Hookyard's accept-to-start by stage, p50 / p99 ms (medians over the runs; a plain NATS subscriber on the run subject timestamps each id when it reaches the bus; the tool start is the `acted` line written just before the call; a run planned before its claim gets that line from the claim itself, so its claim -> tool start is 0 and the plan's time falls in bus -> claim):",
    '',
    table(
      ['rate', 'door -> bus', 'bus -> claim', 'claim -> tool start'],
      lat.map((x) => [`${num(x.offeredPerSecond)}/s`, stage(x, 'doorToBusMs'), stage(x, 'busToClaimMs'), stage(x, 'claimToStartMs')]),
    ),
    ...(s.latencyCurve
      ? [
          '',
          'Accept-to-start by offered rate (one run each):',
          '',
          table(
            ['system', 'offered/s', 'sent/s', 'p50 ms', 'p99 ms', 'max ms'],
            s.latencyCurve.map((c) => [c.system, num(c.offeredPerSecond), num(c.sentPerSecond), num(c.p50Ms), num(c.p99Ms), num(c.maxMs)]),
          ),
        ]
      : []),
    '',
    cpuBlock(
      'run',
      [
        ['Hookyard', s.hookyard],
        ['express + BullMQ', s.bullmq],
      ],
      'cpuMsPerRun',
    ),
    '',
    redisBlock('run', [
      ['Hookyard', s.hookyard.redisPerRun],
      ['express + BullMQ', s.bullmq.redisPerRun],
    ]),
  ].join('\n');
}

function conditions(s) {
  const rows = [['Hookyard jq engine (compiled path), one at a time', mmm(s.engine.sequential)]];
  if (s.engine.bareCompiled) rows.push(['the bare compiled program (no engine wrapper)', mmm(s.engine.bareCompiled)]);
  if (s.engine.workerFallback) rows.push(['engine, expression outside the compiled subset (jq-wasm worker pool)', mmm(s.engine.workerFallback)]);
  if (s.engine.concurrent16) rows.push(['Hookyard jq engine, 16 in flight', mmm(s.engine.concurrent16)]);
  rows.push(['jq-wasm, one call per evaluation (in process)', mmm(s.jqWasm.perCall)]);
  return [
    '## 3. Conditions: evaluations per second',
    '',
    `Condition \`${s.condition}\` over a ${num(s.payloadBytes)} B GitHub-style payload; ${s.source}. Engine stats of the last run: ${JSON.stringify(s.engine.stats)}.`,
    '',
    table(['evaluator', 'evaluations/s'], rows),
    '',
    `Ratio engine/jq-wasm per call (medians): **${num(s.ratio.value)}x**; ${s.engine.workerFallback ? 'worker-pool fallback/jq-wasm' : '16 in flight/jq-wasm'}: ${num(s.ratio.other)}x.`,
  ].join('\n');
}

function growth(s) {
  const out = ['## 4. Growth', ''];
  if (s.hooks) {
    const h = s.hooks;
    out.push(
      `### Door with hooks on other topics (${num(h.otherHooks[0])} vs ${num(h.otherHooks[1])}; filled through the store API in ${num(h.fillMs[h.otherHooks[1]])} ms)`,
      '',
      table(
        ['hooks on other topics', 'events/s', 'p50 ms', 'p99 ms'],
        [
          [num(h.otherHooks[0]), mmm(h.few.perSecond), mmm(h.few.p50Ms), mmm(h.few.p99Ms)],
          [num(h.otherHooks[1]), mmm(h.many.perSecond), mmm(h.many.p50Ms), mmm(h.many.p99Ms)],
        ],
      ),
      '',
      `Ratio many/few: **${num(h.ratioManyOverFew)}**.`,
      '',
    );
  }
  if (s.fanOut) {
    out.push(
      '### Runs per second with several hooks on one topic',
      '',
      table(
        ['hooks on the topic', 'runs/s', 'ms per run', 'events/s'],
        Object.values(s.fanOut).map((r) => [num(r.hooksOnTopic), mmm(r.runsPerSecond), mmm(r.msPerRun), mmm(r.eventsPerSecond)]),
      ),
      '',
    );
  }
  if (s.list) {
    out.push(
      `### One list page (GET /api/hook-runs, 50 runs) with many runs kept`,
      '',
      `${s.list.method}. Target ${num(s.list.target)} runs, reached **${num(s.list.reached)}**${s.list.reached < s.list.target ? ` (the ${s.list.fillBudgetSeconds} s fill budget of the 10-minute suite stopped it; \`--list-fill-seconds\` raises it)` : ''}; fill took ${num(s.list.fillMs)} ms; Redis used_memory at the largest size ${num(Math.round(s.list.redisUsedMemoryBytes / 2 ** 20))} MiB.`,
      '',
      table(
        ['runs kept', 'query', 'p50 ms', 'p99 ms'],
        s.list.steps.flatMap((row) =>
          Object.entries(row)
            .filter(([k]) => k !== 'runs')
            .map(([q, v]) => [num(row.runs), `\`${q}\``, mmm(v.p50Ms), mmm(v.p99Ms)]),
        ),
      ),
      '',
    );
  }
  if (s.payloads) {
    out.push(
      '### Door with large bodies (HOOKS_BODY_MAX_BYTES = 2 MiB)',
      '',
      table(
        ['body', 'Hookyard events/s', 'Hookyard MiB/s', 'Hookyard p99 ms', 'ceiling events/s', 'ratio'],
        Object.entries(s.payloads).map(([k, v]) => [
          k,
          mmm(v.hookyard.perSecond),
          num(v.hookyardMBPerSecond),
          mmm(v.hookyard.p99Ms),
          mmm(v.ceiling.perSecond),
          num(v.ratio),
        ]),
      ),
      '',
    );
  }
  return out.join('\n');
}

function memory(s) {
  const out = [
    '## 5. Memory',
    '',
    `Peak RSS (VmHWM) of every process, over all sections of this run; target <= ${RSS_TARGET_MIB} MiB for each Hookyard role under the end-to-end load (hookyard-*: the e2e, fan-out and memory sections; door-ingress is the door section at full speed, 50 connections):`,
    '',
    table(
      ['process', 'peak RSS MiB', ''],
      Object.entries(s.peakRssMiB).map(([k, v]) => [k, num(v), ROLES.includes(k) ? pass(v <= RSS_TARGET_MIB) : '–']),
    ),
    '',
    ...(s.idle
      ? [
          `Idle RSS, ${num(s.idle.settleSeconds)} s after start with one hook registered and no load (target <= ${IDLE_RSS_TARGET_MIB} MiB each): ` +
            Object.entries(s.idle.rssMiB)
              .map(([k, v]) => `${k} ${num(v)} MiB${ROLES.includes(k) ? ` (${pass(v <= IDLE_RSS_TARGET_MIB)})` : ''}`)
              .join(', ') +
            '.',
          '',
        ]
      : []),
    `Soak: ${s.method}. Sent ${num(s.soak.sent)} events (${num(s.soak.failures)} failed), ${num(s.soak.runsFinished)} runs finished${s.soak.unsolicited ? `; ${num(s.soak.unsolicited)} answers came on a connection with no request in flight (counted apart, not as failures)` : ''}. Target: drift <= ${DRIFT_TARGET_PERCENT} %.`,
    '',
    table(
      ['role', 'first window median MiB', 'last window median MiB', 'drift MiB', 'drift %', ''],
      Object.entries(s.soak.drift).map(([k, v]) => [
        k,
        num(v.firstWindowMedianMiB),
        num(v.lastWindowMedianMiB),
        num(v.driftMiB),
        num(v.driftPercent),
        pass(v.driftPercent != null && v.driftPercent <= DRIFT_TARGET_PERCENT),
      ]),
    ),
  ];
  if (s.parked) {
    const p = s.parked;
    out.push(
      '',
      `Parked runs in the executor: ${p.method}. ${num(p.parked)} runs parked; executor heap used (lowest of ${num(p.samples)} samples) ${num(p.heapBeforeMiB)} -> ${num(p.heapAfterMiB)} MiB, RSS ${num(p.rssBeforeMiB)} -> ${num(p.rssAfterMiB)} MiB: ${num(p.parkedHeapBytesPerRun)} bytes of heap per parked run, ${num(p.finishedHeapBytesPerRun)} per finished run (control): **${num(p.heapBytesPerRun)} bytes per parked run beyond a finished one** (target <= ${PARKED_TARGET_BYTES}: ${pass(p.heapBytesPerRun <= PARKED_TARGET_BYTES)}). Redis bytes per parked run: \`node test/bench/parked-memory.js\`.`,
    );
  }
  return out.join('\n');
}

function catalogue(s) {
  const mmm = (v) => `${num(v.min)} / **${num(v.median)}** / ${num(v.max)}`;
  return [
    '## 6. Tool catalogues',
    '',
    `${s.method}. ${num(s.documentBytes)} bytes, ${num(s.operations)} operations.`,
    '',
    table(
      ['figure', 'min / median / max'],
      [
        ['discovery ms', mmm(s.discoveryMs)],
        ['largest event-loop stall ms (monitorEventLoopDelay)', mmm(s.largestStallMs)],
        ['largest gap between 1 ms timer turns ms', mmm(s.largestTimerGapMs)],
        ...(s.idleTimerGapMs ? [['the same, idle for as long (the machine alone) ms', mmm(s.idleTimerGapMs)]] : []),
      ],
    ),
  ].join('\n');
}

function agent(s) {
  const sat = s.saturation;
  const la = s.loadAverage;
  return [
    '## 7. Agent door: MCP tools/call through Hookyard against the SDK alone',
    '',
    s.method,
    '',
    la ? `Load average (1 / 5 / 15 min) at the section's start ${la.atStart.join(' / ')}, at its end ${la.atEnd.join(' / ')}, on ${la.cores} cores.` : '',
    '',
    table(
      [
        'rate',
        'Hookyard p50 ms',
        'Hookyard p99 ms',
        'direct p50 ms',
        'direct p99 ms',
        'added at p50 ms',
        `<= ${s.rates[0] ? num(s.rates[0].addedP50Ms.target) : '–'} ms`,
        'added at p99 ms',
        'answered/s (H / D)',
      ],
      s.rates.map((x) => [
        `${num(x.rate)}/s`,
        mmm(x.hookyard.p50Ms),
        mmm(x.hookyard.p99Ms),
        mmm(x.direct.p50Ms),
        mmm(x.direct.p99Ms),
        num(x.addedP50Ms.value),
        pass(x.addedP50Ms.met),
        num(x.addedP99Ms),
        `${num(x.hookyard.callsPerSecond.median)} / ${num(x.direct.callsPerSecond.median)}`,
      ]),
    ),
    '',
    table(
      ['saturation', 'calls/s', 'p50 ms', 'p99 ms'],
      [
        [`Hookyard (${num(sat.concurrency)} in flight)`, mmm(sat.hookyard.callsPerSecond), mmm(sat.hookyard.p50Ms), mmm(sat.hookyard.p99Ms)],
        [`direct (${num(sat.concurrency)} in flight)`, mmm(sat.direct.callsPerSecond), mmm(sat.direct.p50Ms), mmm(sat.direct.p99Ms)],
      ],
    ),
    '',
    `Ratio Hookyard/direct calls/s (medians): **${num(sat.ratio.value)}** (per pair ${mmm(sat.ratio.pairs)}); target >= ${num(sat.ratio.target)}: ${pass(sat.ratio.met)}.`,
    '',
    cpuBlock(
      'call at saturation',
      [
        ['Hookyard', sat.hookyard],
        ['direct', sat.direct],
      ],
      'cpuMsPerCall',
    ),
    '',
    redisBlock('call at saturation', [['Hookyard', sat.hookyard.redisPerCall]]),
    '',
    s.note,
  ].join('\n');
}

function counters(s) {
  const mmm = (v) => `${num(v.min)} / **${num(v.median)}** / ${num(v.max)}`;
  const mem = s.statsMemory;
  return [
    '## 8. Per-minute counters: what they cost a run on Redis',
    '',
    `${s.method}.`,
    '',
    table(
      ['per run (min / median / max)', 'counters on', 'counters off'],
      [
        ["Redis commands (the scripts' own calls included)", mmm(s.commandsPerRun.on), mmm(s.commandsPerRun.off)],
        ['scripts (EVALSHA)', mmm(s.scriptsPerRun.on), mmm(s.scriptsPerRun.off)],
        ['µs of Redis time in the scripts', mmm(s.scriptUsecPerRun.on), mmm(s.scriptUsecPerRun.off)],
        ...(s.commandUsecPerRun ? [['µs of it in the commands the scripts call', mmm(s.commandUsecPerRun.on), mmm(s.commandUsecPerRun.off)]] : []),
      ],
    ),
    '',
    `Scripts' time, on / off: ${num(s.scriptUsecPerRun.ratio)}.${mem ? ` Counter keys after ${num(s.runsPerMeasure)} runs of one hook: ${num(mem.keys)} keys, ${num(mem.bytes)} bytes (MEMORY USAGE).` : ''}`,
  ].join('\n');
}

const RENDER = { door, e2e, conditions, growth, memory, catalogue, agent, counters, waiters: scale.waiters, cost: scale.cost, single: scale.single };

function renderMarkdown(r) {
  const m = r.machine;
  const parts = [
    '# Hookyard benchmark results',
    '',
    `Generated by \`pnpm bench\` (\`node test/bench/run.js\`) on ${r.date} in ${num(r.seconds)} s, mode **${r.mode}**. Every figure is min / **median** / max over ${r.options.runs} run(s); comparisons alternate the two systems in the same run.`,
    '',
    table(
      ['machine', ''],
      [
        ['CPU', `${m.cpu}, ${m.cores} cores`],
        ['memory', `${m.memoryGiB} GiB`],
        ['OS', m.os],
        ['Node.js', m.node],
        ['Redis server', m.redis],
        ['NATS server', `${m.nats} (JetStream ${m.jetstream ? 'on' : 'off'})`],
      ],
    ),
    '',
    'The load generator (autocannon at full speed; an evenly paced open loop over keep-alive sockets at a constant rate) runs in its own process on the same machine, so it competes with the system under test for the same cores; Redis and NATS run there too.',
    '',
  ];
  const s = r.sections;
  const summaryRows = verdicts(r).map((v) => [v.name, v.figure, v.target, v.verdict === 'PASS' ? 'PASS' : v.verdict === 'MISS' ? '**MISS**' : '–']);
  if (summaryRows.length) parts.push('## Summary', '', table(['comparison', 'ratio / figure', 'target', ''], summaryRows), '');
  for (const [name, sec] of Object.entries(s)) {
    parts.push(sec.error ? errorBlock(name, sec) : RENDER[name](sec), '');
  }
  const analysis = path.join(BENCH_DIR, 'ANALYSIS.md');
  if (existsSync(analysis)) parts.push('## What limits it', '', readFileSync(analysis, 'utf8').trim(), '');
  return parts.join('\n');
}

/**
 * Every figure with a target, as {name, figure, target, verdict: PASS|MISS|–}:
 * printed by run.js at the end of a run and the summary of RESULTS.md.
 */
function verdicts(r) {
  const out = [];
  const add = (name, figure, target, met) => out.push({ name, figure, target, verdict: met == null ? '–' : met ? 'PASS' : 'MISS' });
  const s = r.sections;
  if (s.e2e && !s.e2e.error && s.e2e.latency) {
    for (const x of s.e2e.latency) {
      const st = x.stages
        ? `; door->bus ${num(x.stages.doorToBusMs.p99)}, bus->claim ${num(x.stages.busToClaimMs.p99)}, claim->tool start ${num(x.stages.claimToStartMs.p99)} ms p99`
        : '';
      add(
        `p99 accept-to-start at ${num(x.fraction * 100)} % of max (${num(x.offeredPerSecond)}/s), Hookyard / BullMQ`,
        `${num(x.hookyard.p99Ms.median)} / ${num(x.bullmq.p99Ms.median)} ms = ${num(x.p99Ratio.value)}x${st}`,
        `<= ${P99_TARGET}x`,
        x.p99Ratio.value == null ? null : x.p99Ratio.met,
      );
      add(
        `p50 accept-to-start at ${num(x.offeredPerSecond)}/s`,
        `${num(x.p50.valueMs)} ms (door->bus ${x.stages ? num(x.stages.doorToBusMs.p50) : '–'}, bus->claim ${x.stages ? num(x.stages.busToClaimMs.p50) : '–'}, claim->tool start ${x.stages ? num(x.stages.claimToStartMs.p50) : '–'})`,
        `<= ${P50_TARGET} ms`,
        x.p50.valueMs == null ? null : x.p50.met,
      );
    }
  }
  if (s.door && !s.door.error)
    add('door / ceiling events/s', num(s.door.ratio.value), `>= ${num(s.door.ratio.target)}`, s.door.ratio.value == null ? null : s.door.ratio.met);
  if (s.e2e && !s.e2e.error)
    add('Hookyard / BullMQ runs/s', `${num(s.e2e.ratio.value)}x`, `>= ${num(s.e2e.ratio.target)}x`, s.e2e.ratio.value == null ? null : s.e2e.ratio.met);
  if (s.e2e && !s.e2e.error && s.e2e.cpuPerRun) {
    const c = s.e2e.cpuPerRun;
    add(
      'CPU per run, servers + Redis + NATS / BullMQ app + worker + Redis',
      `${num(c.hookyardMs.median)} / ${num(c.bullmqMs.median)} ms = ${num(c.value)}x`,
      `<= ${num(c.target)}x`,
      c.value == null ? null : c.met,
    );
  }
  if (s.e2e && !s.e2e.error && s.e2e.perRun) {
    const p = s.e2e.perRun;
    add(
      'Redis scripts per started run (EVALSHA + EVAL, e2e throughput runs)',
      mmm(p.scripts.value),
      `<= ${p.scripts.target}`,
      p.scripts.value.median == null ? null : p.scripts.met,
    );
    add(
      'Redis µs in scripts per started run',
      `${mmm(p.scriptUsec.value)} µs`,
      `<= ${p.scriptUsec.target} µs`,
      p.scriptUsec.value.median == null ? null : p.scriptUsec.met,
    );
    add(
      'executor CPU per run (e2e throughput runs)',
      `${mmm(p.executorCpuMs.value)} ms`,
      `<= ${p.executorCpuMs.target} ms`,
      p.executorCpuMs.value.median == null ? null : p.executorCpuMs.met,
    );
  }
  if (s.memory && !s.memory.error) {
    for (const role of ROLES) {
      const v = s.memory.peakRssMiB[role];
      if (v != null) add(`peak RSS ${role}`, `${num(v)} MiB`, `<= ${RSS_TARGET_MIB} MiB`, v <= RSS_TARGET_MIB);
    }
    for (const role of ROLES) {
      const v = s.memory.idle && s.memory.idle.rssMiB[role];
      if (v != null) add(`idle RSS ${role}`, `${num(v)} MiB`, `<= ${IDLE_RSS_TARGET_MIB} MiB`, v <= IDLE_RSS_TARGET_MIB);
    }
    for (const [role, d] of Object.entries(s.memory.soak.drift))
      add(
        `RSS drift over the soak, ${role}`,
        `${num(d.driftPercent)} % (${num(d.firstWindowMedianMiB)} -> ${num(d.lastWindowMedianMiB)} MiB)`,
        `<= ${DRIFT_TARGET_PERCENT} %`,
        d.driftPercent == null ? null : d.driftPercent <= DRIFT_TARGET_PERCENT,
      );
    if (s.memory.parked)
      add(
        'executor heap per parked run beyond a finished run',
        `${num(s.memory.parked.heapBytesPerRun)} bytes`,
        `<= ${PARKED_TARGET_BYTES} bytes`,
        s.memory.parked.heapBytesPerRun <= PARKED_TARGET_BYTES,
      );
  }
  if (s.conditions && !s.conditions.error && s.conditions.ratio) add('jq engine / jq-wasm per call', `${num(s.conditions.ratio.value)}x`, '–', null);
  if (s.growth && !s.growth.error && s.growth.hooks)
    add(`door with ${num(s.growth.hooks.otherHooks[1])} / ${num(s.growth.hooks.otherHooks[0])} other hooks`, num(s.growth.hooks.ratioManyOverFew), '–', null);
  if (s.agent && !s.agent.error) {
    for (const x of s.agent.rates)
      add(
        `agent door: added p50 at ${num(x.rate)} calls/s, Hookyard - SDK alone`,
        `${num(x.hookyard.p50Ms.median)} - ${num(x.direct.p50Ms.median)} = ${num(x.addedP50Ms.value)} ms`,
        `<= ${num(x.addedP50Ms.target)} ms`,
        x.addedP50Ms.met,
      );
    const sat = s.agent.saturation;
    add(
      'agent door: calls/s at saturation, Hookyard / SDK alone',
      `${num(sat.hookyard.callsPerSecond.median)} / ${num(sat.direct.callsPerSecond.median)} = ${num(sat.ratio.value)}`,
      `>= ${num(sat.ratio.target)}`,
      sat.ratio.met,
    );
  }
  scale.scaleVerdicts(s, add);
  if (s.catalogue && !s.catalogue.error) {
    add('GitHub OpenAPI discovery (median)', `${num(s.catalogue.discoveryMs.median)} ms`, '< 5000 ms', s.catalogue.discoveryMs.median < 5000);
    add('largest event-loop stall during it (median)', `${num(s.catalogue.largestStallMs.median)} ms`, '< 50 ms', s.catalogue.largestStallMs.median < 50);
  }
  return out;
}

module.exports = { renderMarkdown, verdicts };
