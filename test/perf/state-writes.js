'use strict';
/**
 * Subject state writes on Redis through the store: sets, merges on one hot
 * subject (concurrent merges read again on a compare-and-set miss), and
 * reads, each as operations per second and p50/p99 latency. Uses its own key
 * prefix and deletes it after.
 *
 *   node test/perf/state-writes.js [--n 2000] [--width 16] [--url redis://127.0.0.1:6379]
 */
const path = require('node:path');
const ROOT = path.resolve(__dirname, '..', '..');
const { createRedisStores } = require(path.join(ROOT, 'packages/store/dist'));
const { createRequire } = require('node:module');
const Redis = createRequire(path.join(ROOT, 'packages/store/package.json'))('ioredis');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

async function measure(label, n, width, op) {
  const times = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        const s = process.hrtime.bigint();
        await op(i);
        times.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  console.log(`${label.padEnd(34)} ${String(Math.round(n / secs)).padStart(7)} ops/s  p50 ${pct(0.5)} ms  p99 ${pct(0.99)} ms`);
}

async function main() {
  const n = Number(arg('n', 2000));
  const width = Number(arg('width', 16));
  const url = arg('url', process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  const prefix = `perfstate${process.pid}`;
  const stores = await createRedisStores({ url, prefix, partitions: 1 });
  const by = (i) => ({ door: 'hook', actor: `run-${i}`, hook: 'perf', now: Date.now() });
  const doc = { checks: 'green', reviews: { ann: 'approved', bob: 'commented' }, labels: ['a', 'b', 'c'], title: 'x'.repeat(200) };
  try {
    await measure(`set, ${width} wide, distinct keys`, n, width, (i) => stores.states.set({ scope: 'gh', kind: 'pr', key: `k${i}` }, doc, by(i)));
    await measure(`set, ${width} wide, one key`, n, width, (i) => stores.states.set({ scope: 'gh', kind: 'pr', key: 'hot' }, { ...doc, i }, by(i)));
    await measure('merge, 1 wide, one key', n, 1, (i) => stores.states.merge({ scope: 'gh', kind: 'pr', key: 'hot' }, { n: i }, by(i)));
    let gaveUp = 0;
    const m = Math.floor(n / 4);
    await measure(`merge, 4 wide, one key (CAS misses)`, m, 4, (i) =>
      stores.states.merge({ scope: 'gh', kind: 'pr', key: 'hot4' }, { [`k${i % 8}`]: i }, by(i)).catch(() => void (gaveUp += 1)),
    );
    const kept = await stores.states.get({ scope: 'gh', kind: 'pr', key: 'hot4' });
    console.log(`  ${m} concurrent merges: ${kept.version} applied, ${gaveUp} gave up (conflict after 5 reads)`);
    await measure(`get, ${width} wide`, n, width, (i) => stores.states.get({ scope: 'gh', kind: 'pr', key: `k${i}` }));
  } finally {
    await stores.close();
    const r = new Redis(url);
    let cursor = '0';
    do {
      const [nextCursor, keys] = await r.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
    r.disconnect();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
