'use strict';
/**
 * Redis-side cost of the claim_planned script body (the planned start of a
 * fresh run: claim + act in one step), without network or client, as
 * lua-cost.js measures keep_event: one EVAL writes N fresh runs (new_run.lua),
 * a second runs the script N times between two TIME calls. The minimum over
 * several repetitions is the steady figure on a busy machine.
 *
 *   node test/perf/claim-cost.js [--n N] [--reps R] [--dir path/to/lua] [--against path/to/other/lua] [--plan start|skip] [--payload-bytes B]
 *
 * --dir measures another copy of the scripts (e.g. an older commit's lua/ folder);
 * --against measures a second copy in the same process, alternating with the
 * first rep by rep, so both see the same load on a shared machine.
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
  const plan = arg('plan', 'start');
  const dirs = [arg('dir', path.join(ROOT, 'packages/store/src/redis/lua')), arg('against', null)].filter(Boolean);
  const prefix = `perfclaim${process.pid}`;
  const tag = `{${prefix}:p0}`;
  // Fresh pending runs, as keep_event writes them.
  const setup = `
${loadScript('new_run', dirs[0])}
local history = '[{"at":' .. ARGV[4] .. ',"attempt":0,"event":"kept","detail":"event on bench"}]'
for i = 1, tonumber(ARGV[3]) do
  new_run(ARGV[1], KEYS[1], ARGV[2] .. string.format('%06d', i), 'bench', 'bench', ARGV[5], '', tonumber(ARGV[4]), tonumber(ARGV[4]), history, '', 'http', '0', '')
end
redis.call('HSET', ARGV[1] .. ':hook-revs', 'bench', 'rev1')
return 0`;
  const timed = (dir) => `
local function claim(KEYS, ARGV)
${loadScript('claim_planned', dir)}
end
local t0 = redis.call('TIME')
local tag, base = ARGV[1], ARGV[2]
for i = 1, tonumber(ARGV[18]) do
  local id = base .. string.format('%06d', i)
  local keys = { tag .. ':run:' .. id, KEYS[1], KEYS[2], KEYS[3] }
  local argv = { tag, id, ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13],
    ARGV[14], ARGV[15], ARGV[16], ARGV[17] .. i }
  local reply = claim(keys, argv)
  if reply[5] ~= (ARGV[8] == 'skip' and 'skipped' or ARGV[8]) then error('run ' .. id .. ' answered ' .. tostring(reply[5])) end
end
local t1 = redis.call('TIME')
return (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2])`;
  const r = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  const payload = JSON.stringify(JSON.parse(jsonBody(Number(arg('payload-bytes', 1024)))));
  const keys = [`${tag}:due`, `${tag}:lease`, `${tag}:done`];
  const times = dirs.map(() => []);
  try {
    for (let rep = 0; rep < reps * dirs.length; rep++) {
      // Alternating, and each copy first as often as second.
      const which = (rep + Math.floor(rep / 2)) % dirs.length;
      const now = Date.now();
      const base = `${now.toString(36).padStart(10, '0')}${rep.toString(36).padStart(4, '0')}`;
      await r.eval(setup, 1, keys[0], tag, base, n, now, payload);
      const us = await r.eval(
        timed(dirs[which]),
        3,
        ...keys,
        tag,
        base,
        'bench-owner',
        30000,
        now + 1,
        'by bench-owner, lease 30s',
        'rev1',
        plan,
        plan === 'skip' ? '{"skipped":true}' : '{"a":1}',
        1,
        'tool started',
        '',
        '',
        payload,
        '0',
        'bench',
        `nonce${rep}-`,
        n,
      );
      times[which].push(us / n);
    }
  } finally {
    let cursor = '0';
    do {
      const [next, found] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 10000);
      cursor = next;
      if (found.length) await r.unlink(...found);
    } while (cursor !== '0');
    r.disconnect();
  }
  dirs.forEach((dir, i) => {
    const t = times[i].sort((a, b) => a - b);
    process.stdout.write(
      `claim_planned (${plan}, ${dir}): min ${t[0].toFixed(1)} us/run, median ${t[Math.floor(t.length / 2)].toFixed(1)} us/run (n ${n} x ${reps})\n`,
    );
  });
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
