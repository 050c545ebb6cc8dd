'use strict';
/**
 * Child processes of the suite: Hookyard roles, the ceiling, the express +
 * BullMQ pair. Every process started here is registered so that an error or
 * an interrupt still ends it (by its own pid, never by name).
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { CLI_BIN, log, sleep } = require('./common');

const live = new Set();

function killAllSync() {
  for (const p of live) {
    try {
      process.kill(p.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}
process.on('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAllSync();
    process.exit(130);
  });
}

/** VmRSS and VmHWM of a pid in bytes (null once it is gone). */
function memoryOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

class Proc {
  constructor(name, child) {
    this.name = name;
    this.child = child;
    this.lines = [];
    this.url = '';
    this.peakHwm = 0;
    this.lineCount = 0;
    let buf = '';
    const onData = (chunk) => {
      buf += chunk.toString('utf8');
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        this.lineCount += 1;
        if (this.lines.length < 2000) this.lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    live.add(this);
  }

  get pid() {
    return this.child.pid;
  }

  /** Waits for the JSON log line with a `url` and a `msg` that says "listening". */
  async waitListening(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const l of this.lines) {
        if (!l.startsWith('{')) continue;
        try {
          const rec = JSON.parse(l);
          if (typeof rec.url === 'string' && String(rec.msg ?? '').includes('listening')) {
            this.url = rec.url.replace(/\/$/, '');
            return this.url;
          }
        } catch {
          /* not JSON */
        }
      }
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited with ${this.child.exitCode}:\n${this.lines.slice(-30).join('\n')}`);
      await sleep(50);
    }
    throw new Error(`${this.name} did not log "listening" within ${timeoutMs} ms:\n${this.lines.slice(-30).join('\n')}`);
  }

  memory() {
    const m = memoryOf(this.pid);
    if (m && m.hwm) this.peakHwm = Math.max(this.peakHwm, m.hwm);
    return m;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; returns the peak RSS (VmHWM) seen. */
  async stop(graceMs = 3000) {
    this.memory();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const t = setTimeout(() => {
        if (this.child.exitCode === null) this.child.kill('SIGKILL');
      }, graceMs);
      await this.exited;
      clearTimeout(t);
    }
    live.delete(this);
    // A chatty process skews what it measures: say so.
    if (this.lineCount > 100) log(`${this.name} wrote ${this.lineCount} log lines, e.g. ${this.lines[this.lines.length - 1].slice(0, 300)}`);
    return this.peakHwm;
  }
}

function startNode(name, args, env, nodeFlags = []) {
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
  const child = spawn(process.execPath, [...nodeFlags, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Proc(name, child);
}

/**
 * Node flags of one child: `--cpu-prof` when BENCH_PROFILE_ROLE names it (Node 20
 * refuses --cpu-prof in NODE_OPTIONS, so it goes on the command line).
 */
function profileOptions(name) {
  const want = (process.env.BENCH_PROFILE_ROLE || '').split(',').filter(Boolean);
  if (!want.some((w) => name === w || name.startsWith(`${w}`))) return [];
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) throw new Error('BENCH_PROFILE_ROLE needs BENCH_PROFILE_DIR');
  log(`profiling ${name} into ${dir}`);
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** One `hookyard serve --role <role>` process. */
function startRole(name, role, env) {
  return startNode(name, [CLI_BIN, 'serve', '--role', role], { HOOKS_HTTP_PORT: '0', HOOKS_LOG_LEVEL: 'info', ...env }, profileOptions(name));
}

function startScript(name, script, args, env) {
  return startNode(name, [script, ...args], env, profileOptions(name));
}

/** A bench script as a child with an IPC channel (`proc.child.send` / `on('message')`), ended like the others. */
function forkScript(name, script, args, env = {}) {
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
  const child = spawn(process.execPath, [script, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  return new Proc(name, child);
}

/** Starts several processes and waits for all to listen; stops them all if one fails. */
async function startAll(procs) {
  try {
    await Promise.all(procs.map((p) => p.waitListening()));
    return procs;
  } catch (err) {
    await stopAll(procs);
    throw err;
  }
}

async function stopAll(procs) {
  const peaks = {};
  // A profiled process writes its profile on a clean exit: give it time.
  const grace = process.env.BENCH_PROFILE_ROLE ? 15_000 : 3000;
  await Promise.all(
    procs.map(async (p) => {
      peaks[p.name] = await p.stop(grace);
    }),
  );
  return peaks;
}

module.exports = { startRole, startScript, forkScript, startAll, stopAll, memoryOf, killAllSync };
