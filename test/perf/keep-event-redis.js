'use strict';
/**
 * Cost of the store's keepEvent alone (no HTTP): Redis CPU per call (INFO cpu
 * and EVALSHA usec_per_call) and node CPU per call, one hook on the topic,
 * ~1 KB payload, `--inflight` calls in flight. Build first (`pnpm build`).
 *
 *   node test/perf/keep-event-redis.js [--calls N] [--inflight K] [--rounds R] [--raw]
 *
 * --raw passes the payload as already-serialised JSON (payloadJson) as the door does for a JSON object body.
 * --claimed keeps each call with a fresh delivery id claimed in the same script (keepDelivery, a verified topic);
 * --two-writes does what the door did before that: SET NX on the claim key, then keepEvent (for comparison).
 */
const path = require('node:path');
const { createRequire } = require('node:module');
const ROOT = path.resolve(__dirname, '..', '..');
const { createRedisStores } = require(path.join(ROOT, 'packages/store/dist'));
const Redis = createRequire(path.join(ROOT, 'packages/store/package.json'))('ioredis');
const { jsonBody } = require('../bench/lib/payload');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function redisStats(r) {
  const cpu = await r.info('cpu');
  const v = (k) => Number((new RegExp(`${k}:([0-9.]+)`).exec(cpu) || [])[1] || 0);
  const cmd = await r.info('commandstats');
  const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(cmd);
  return { cpuUs: (v('used_cpu_user') + v('used_cpu_sys')) * 1e6, evalCalls: m ? Number(m[1]) : 0, evalUs: m ? Number(m[2]) : 0 };
}

async function main() {
  const calls = arg('calls', 20000);
  const inflight = arg('inflight', 50);
  const rounds = arg('rounds', 3);
  const raw = process.argv.includes('--raw');
  const claimed = process.argv.includes('--claimed');
  const twoWrites = process.argv.includes('--two-writes');
  let seq = 0;
  const prefix = `perfkeep${process.pid}`;
  const stores = await createRedisStores({ url: REDIS_URL, prefix, partitions: 4 });
  const r = new Redis(REDIS_URL);
  const text = jsonBody(1024);
  // Through the store, so every partition's copy of the topic's hook index lists it (keep_event reads the copy).
  const at = new Date().toISOString();
  await stores.hooks.putHook({ name: 'b1', topic: 'bench', tool: 'echo', tool_kwargs: {}, created_at: at, updated_at: at });
  try {
    for (let round = 0; round < rounds + 1; round++) {
      const s0 = await redisStats(r);
      const c0 = process.cpuUsage();
      let next = 0;
      const worker = async () => {
        while (next < calls) {
          next += 1;
          const payload = JSON.parse(text);
          const input = { topic: 'bench', payload, ...(raw ? { payloadJson: text } : {}), now: Date.now(), dispatchGraceMs: 30000 };
          const id = `d${(seq += 1)}`;
          if (claimed) await stores.runs.keepDelivery(input, { id, ttlMs: 3_600_000 });
          else if (twoWrites) {
            await r.set(`{${prefix}}:delivery:bench:${id}`, '1', 'PX', 3_600_000, 'NX');
            await stores.runs.keepEvent({ ...input, deliveryId: id });
          } else await stores.runs.keepEvent(input);
        }
      };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: inflight }, worker));
      const ms = Date.now() - t0;
      const c = process.cpuUsage(c0);
      const s1 = await redisStats(r);
      if (round === 0) continue; // warm-up
      const evalCalls = s1.evalCalls - s0.evalCalls;
      process.stdout.write(
        `${raw ? 'raw ' : ''}${claimed ? 'claimed ' : twoWrites ? 'two-writes ' : ''}round ${round}: ${Math.round(calls / (ms / 1000))}/s node ${((c.user + c.system) / calls).toFixed(1)} us/call, ` +
          `redis ${((s1.cpuUs - s0.cpuUs) / calls).toFixed(1)} us/call, evalsha ${((s1.evalUs - s0.evalUs) / evalCalls).toFixed(1)} us/call\n`,
      );
    }
  } finally {
    let cursor = '0';
    do {
      const [nextCursor, keys] = await r.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 10000);
      cursor = nextCursor;
      if (keys.length) await r.unlink(...keys);
    } while (cursor !== '0');
    r.disconnect();
    await stores.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
