'use strict';
/**
 * Top self-time functions of V8 CPU profiles (.cpuprofile files written by
 * `node --cpu-prof`), to say what limits a process under load.
 *
 *   node test/bench/profile-summary.js <dir or file>... [--top N] [--by file|function] [--callers <function name>]
 *
 * Self time of a node = its sample count x the sampling interval. Grouping by
 * file (or package, for node_modules) shows which layer the time goes to.
 */
const { readdirSync, readFileSync, statSync } = require('node:fs');
const path = require('node:path');

function files(args) {
  const out = [];
  for (const a of args) {
    if (statSync(a).isDirectory()) {
      for (const f of readdirSync(a)) if (f.endsWith('.cpuprofile')) out.push(path.join(a, f));
    } else {
      out.push(a);
    }
  }
  return out;
}

/** Where a frame lives, shortened: `pkg@ver/file` for dependencies, workspace path otherwise. */
function place(url) {
  if (!url) return '(native)';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (u.startsWith('node:')) return u;
  const m = /(packages|services)\/[^/]+\/.*$/.exec(u);
  return m ? m[0] : path.basename(u);
}

function summarise(file, top, by) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const s of prof.samples) counts.set(s, (counts.get(s) || 0) + 1);
  const totalUs = prof.endTime - prof.startTime;
  const perSample = totalUs / Math.max(1, prof.samples.length);
  const groups = new Map();
  let idle = 0;
  for (const [id, c] of counts) {
    const n = byId.get(id);
    const cf = n.callFrame;
    const name = cf.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      const k = name;
      groups.set(k, (groups.get(k) || 0) + c);
      if (name === '(idle)') idle += c;
      continue;
    }
    const k = by === 'file' ? place(cf.url) : `${name}  ${place(cf.url)}:${cf.lineNumber + 1}`;
    groups.set(k, (groups.get(k) || 0) + c);
  }
  const busy = prof.samples.length - idle;
  if (callersOf) return callers(prof, byId, counts, perSample, callersOf, file);
  groups.delete('(idle)');
  const rows = [...groups.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const lines = [
    `${path.basename(file)}: ${(totalUs / 1e6).toFixed(1)} s profiled, busy ${((busy / prof.samples.length) * 100).toFixed(0)}% (${((busy * perSample) / 1e6).toFixed(1)} s on CPU)`,
  ];
  for (const [k, c] of rows)
    lines.push(`  ${((c * perSample) / 1000).toFixed(0).padStart(7)} ms  ${((c / Math.max(1, busy)) * 100).toFixed(1).padStart(5)}% of busy  ${k}`);
  return lines.join('\n');
}

/** Self time of `name`, split by the stack of callers (3 frames) that reached it. */
function callers(prof, byId, counts, perSample, name, file) {
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const stacks = new Map();
  for (const [id, c] of counts) {
    const n = byId.get(id);
    if (n.callFrame.functionName !== name) continue;
    const chain = [];
    let p = parent.get(id);
    while (p !== undefined && chain.length < 3) {
      const f = byId.get(p).callFrame;
      chain.push(`${f.functionName || '(anonymous)'}@${place(f.url)}:${f.lineNumber + 1}`);
      p = parent.get(p);
    }
    const k = chain.join(' <- ');
    stacks.set(k, (stacks.get(k) || 0) + c);
  }
  const rows = [...stacks.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return [`${path.basename(file)}: callers of ${name}`, ...rows.map(([k, c]) => `  ${((c * perSample) / 1000).toFixed(0).padStart(6)} ms  ${k}`)].join('\n');
}

const args = process.argv.slice(2);
let callersOf = null;
let top = 25;
let by = 'function';
const paths = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--by') by = args[++i];
  else if (args[i] === '--callers') callersOf = args[++i];
  else paths.push(args[i]);
}
if (paths.length === 0) {
  process.stderr.write('usage: node test/bench/profile-summary.js <dir or .cpuprofile>... [--top N] [--by file|function]\n');
  process.exit(2);
}
for (const f of files(paths)) process.stdout.write(summarise(f, top, by) + '\n\n');
