'use strict';
/**
 * Per-minute counters (issue 25): what the store's counters cost a run on
 * Redis. A private redis-server (its own port, no persistence) so its
 * commandstats count this section's commands only; the built store drives runs
 * through keep -> claim -> act -> complete (the four scripts of a run that
 * succeeds), once as built (counters on) and once from a copy of the store
 * whose stats.lua is a no-op (counters off), alternating ABBA. Reported per
 * run: Redis commands (a count, the scripts' own calls included), EVALSHA µs
 * (Redis's own time in the scripts), and the counters' Redis memory per
 * minute of one hook.
 */
const { spawn } = require('node:child_process');
const { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync } = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ROOT, deps, log, sleep, summary } = require('../lib/common');

const STORE = path.join(ROOT, 'packages', 'store');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function privateRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const Redis = deps.Redis();
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined); // refused until the server listens: the loop retries
    try {
      await r.connect();
      await r.ping();
      return { url, admin: r, stop: () => (r.disconnect(), child.kill('SIGTERM')) };
    } catch {
      r.disconnect();
      await sleep(100);
    }
  }
  child.kill('SIGTERM');
  throw new Error('the private redis-server did not start');
}

/** A copy of the built store whose counters do nothing (stats.lua no-ops; finish counts no outcome). */
function storeWithoutCounters() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hy-nocounters-'));
  cpSync(path.join(STORE, 'dist'), path.join(dir, 'dist'), { recursive: true });
  symlinkSync(path.join(STORE, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const lua = path.join(dir, 'dist', 'redis', 'lua');
  writeFileSync(path.join(lua, 'stats.lua'), '-- bench: counters off\nlocal function stats_bucket(ms) return 0 end\nlocal function stats_add(...) end\n');
  const transitions = path.join(lua, 'transitions.lua');
  const src = readFileSync(transitions, 'utf8');
  const off = src.replace(/local STATS_OUTCOMES = \{[^}]*\}/, 'local STATS_OUTCOMES = {}');
  if (off === src) throw new Error('transitions.lua has no STATS_OUTCOMES table to switch off');
  writeFileSync(transitions, off);
  return { store: require(path.join(dir, 'dist', 'index.js')), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function commandstats(info) {
  const out = {};
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (m) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  }
  return out;
}

/** `n` runs through keep, claim, act, complete, 8 at a time; Redis's commandstats of just that. */
async function drive(store, redis, n, prefix) {
  const stores = await store.createRedisStores({ url: redis.url, prefix, partitions: 4 });
  try {
    const now = () => Date.now();
    await stores.hooks.putHook({
      name: 'bench',
      topic: 'bench',
      tool: 'echo',
      tool_kwargs: {},
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    await redis.admin.config('RESETSTAT');
    let next = 0;
    const chain = async () => {
      while (next < n) {
        next += 1;
        const [kept] = await stores.runs.keepEvent({ topic: 'bench', payload: { n: next }, now: now(), dispatchGraceMs: 0 });
        const claimed = await stores.runs.claim(kept.id, 'bench', 30_000, now());
        await stores.runs.act(kept.id, claimed.token, { acted: 'start', actedIds: [] }, now());
        await stores.runs.complete(kept.id, claimed.token, 'succeeded', { ok: true }, now());
      }
    };
    await Promise.all(Array.from({ length: 8 }, chain));
    const stats = commandstats(await redis.admin.info('commandstats'));
    // Every command Redis ran, those the scripts call included (the store's few outside scripts are the same in both variants).
    const commands = Object.entries(stats)
      .filter(([name]) => !['info', 'config'].includes(name))
      .reduce((a, [, v]) => a + v.calls, 0);
    const evalsha = stats.evalsha || { calls: 0, usec: 0 };
    // Redis's time in the commands the scripts call (commandstats times them too), without the scripts' own Lua work.
    const commandUsec = Object.entries(stats)
      .filter(([name]) => !['info', 'config', 'evalsha', 'eval'].includes(name))
      .reduce((a, [, v]) => a + v.usec, 0);
    return { commandUsecPerRun: commandUsec / n, commandsPerRun: commands / n, scriptsPerRun: evalsha.calls / n, scriptUsecPerRun: evalsha.usec / n, stats };
  } finally {
    await stores.close();
  }
}

async function statsMemory(redis, prefix) {
  let cursor = '0';
  let bytes = 0;
  let keys = 0;
  do {
    const [c, found] = await redis.admin.scan(cursor, 'MATCH', `{${prefix}:p*}:stats:*`, 'COUNT', 1000);
    cursor = c;
    for (const k of found) {
      bytes += Number(await redis.admin.memory('USAGE', k));
      keys += 1;
    }
  } while (cursor !== '0');
  return { bytes, keys };
}

async function counters(ctx) {
  const n = ctx.smoke ? 200 : 3000;
  const rounds = Math.max(ctx.runs, 1);
  const redis = await privateRedis();
  const off = storeWithoutCounters();
  const on = { store: require(path.join(STORE, 'dist', 'index.js')) };
  const results = { on: [], off: [] };
  let memory = null;
  try {
    for (let round = 0; round < rounds; round++) {
      // ABBA: on, off, off, on, ...
      const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const which of order) {
        const prefix = `benchctr${round}${which}`;
        const r = await drive(which === 'on' ? on.store : off.store, redis, n, prefix);
        if (which === 'on' && !memory) memory = await statsMemory(redis, prefix);
        results[which].push(r);
        log(
          `counters: round ${round + 1} ${which}: ${r.commandsPerRun.toFixed(1)} commands, ${r.scriptsPerRun.toFixed(2)} scripts, ${r.scriptUsecPerRun.toFixed(0)} µs of scripts per run (${r.commandUsecPerRun.toFixed(0)} µs in their commands)`,
        );
        await redis.admin.flushall();
      }
    }
  } finally {
    off.remove();
    redis.stop();
  }
  const pick = (which, k) => summary(results[which].map((r) => r[k]));
  const round1 = (v) => (v == null ? null : Math.round(v * 10) / 10);
  const mmm = (s) => ({ min: round1(s.min), median: round1(s.median), max: round1(s.max) });
  const usecOn = pick('on', 'scriptUsecPerRun');
  const usecOff = pick('off', 'scriptUsecPerRun');
  return {
    method: `private redis-server, the store's scripts driven directly: ${n} runs (keep, claim, act, complete; 8 at a time; 4 partitions) per measure, counters on vs a copy with stats.lua a no-op, ABBA`,
    runsPerMeasure: n,
    commandsPerRun: { on: mmm(pick('on', 'commandsPerRun')), off: mmm(pick('off', 'commandsPerRun')) },
    scriptsPerRun: { on: mmm(pick('on', 'scriptsPerRun')), off: mmm(pick('off', 'scriptsPerRun')) },
    commandUsecPerRun: { on: mmm(pick('on', 'commandUsecPerRun')), off: mmm(pick('off', 'commandUsecPerRun')) },
    scriptUsecPerRun: { on: mmm(usecOn), off: mmm(usecOff), ratio: usecOff.median ? Math.round((usecOn.median / usecOff.median) * 1000) / 1000 : null },
    // The counters of n runs of one hook, all within a few minutes: bytes per minute key as kept.
    statsMemory: memory,
  };
}

module.exports = { counters };
