'use strict';
/**
 * Redis-side cost of the keep_event script body, without network or client:
 * one EVAL runs the script N times in a loop between two TIME calls. The
 * minimum over several repetitions is the steady figure on a busy machine.
 * Each EVAL blocks Redis for about N x the cost: keep N small (default 500).
 *
 *   node test/perf/lua-cost.js [--n N] [--reps R] [--file path/to/keep_event.lua] [--payload-bytes B]
 */
const path = require('node:path');
const { createRequire } = require('node:module');
const ROOT = path.resolve(__dirname, '..', '..');
const { loadScript } = require(path.join(ROOT, 'packages/store/dist/redis/scripts'));
const Redis = createRequire(path.join(ROOT, 'packages/store/package.json'))('ioredis');
const { jsonBody } = require('../bench/lib/payload');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

async function main() {
  const n = Number(arg('n', 500));
  const reps = Number(arg('reps', 7));
  const file = arg('file', path.join(ROOT, 'packages/store/src/redis/lua/keep_event.lua'));
  const body = loadScript(path.basename(file, '.lua'), path.dirname(file));
  const prefix = `perflua${process.pid}`;
  // The script as a function of (KEYS, ARGV), called n times with fresh ids.
  const wrapped = `
local function keep(KEYS, ARGV)
${body}
end
local t0 = redis.call('TIME')
local n = tonumber(ARGV[10])
for i = 1, n do
  local argv = { ARGV[1], ARGV[2] .. string.format('%06d', i), ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9] }
  keep(KEYS, argv)
end
local t1 = redis.call('TIME')
return (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2])`;
  const r = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  const tag = `{${prefix}:p0}`;
  // keep_event reads the partition's copy of the topic's hooks (same slot as its other keys).
  await r.zadd(`${tag}:topic-hooks:bench`, 0, 'b1');
  const payload = JSON.stringify(JSON.parse(jsonBody(Number(arg('payload-bytes', 1024)))));
  const history = JSON.stringify([{ at: Date.now(), attempt: 0, event: 'kept', detail: 'event on bench' }]);
  const times = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const now = Date.now();
      const base = `${now.toString(36).padStart(10, '0')}${rep.toString(36).padStart(4, '0')}00`;
      const us = await r.eval(
        wrapped,
        2,
        `${tag}:topic-hooks:bench`,
        `${tag}:due`,
        tag,
        base,
        'bench',
        payload,
        '',
        now,
        now + 30000,
        1296,
        process.env.LUA_ARG9 === 'history' ? history : 'event on bench',
        n,
      );
      times.push(us / n);
    }
  } finally {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 10000);
      cursor = next;
      if (keys.length) await r.unlink(...keys);
    } while (cursor !== '0');
    r.disconnect();
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `${path.basename(file)}: min ${times[0].toFixed(1)} us/run, median ${times[Math.floor(times.length / 2)].toFixed(1)} us/run (n ${n} x ${reps})\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
