/**
 * List-page benchmark at scale: fills a Redis prefix with N runs written
 * directly in the store's key layout (pipelined; same fields and indexes as
 * keep_event.lua and the state scripts), then measures list pages.
 *
 *   npx tsc -b packages/store && node packages/store/test/list-perf.js [N] [redisUrl]
 *
 * Not a jest test. Reused by the benchmark suite: `{ fillRuns, measureListPage }`.
 */
const Redis = require('ioredis');
const { createRedisStores } = require('../dist');
const { KeyLayout } = require('../dist/redis/keys');
const { runIdBase, runIdAt } = require('../dist/run-ids');

/** Status mix of a long-running deployment: mostly finished, some held failed. */
const STATUSES = [
  ['succeeded', 70],
  ['skipped', 10],
  ['pending', 8],
  ['retry_wait', 4],
  ['failed', 6],
  ['discarded', 2],
];

function statusFor(i) {
  let r = ((i * 2654435761) % 4294967296) % 100;
  for (const [status, share] of STATUSES) {
    if (r < share) return status;
    r -= share;
  }
  return 'succeeded';
}

/**
 * Writes `n` runs under `prefix` over `partitions` partitions, `hooks` hooks on
 * `topics` topics, one event per millisecond before `now`. Returns the elapsed ms.
 */
async function fillRuns({ url, prefix, partitions = 4, n, hooks = 20, topics = 5, now = Date.now(), batch = 2000 }) {
  const client = new Redis(url, { enableAutoPipelining: false });
  const keys = new KeyLayout(prefix);
  const started = Date.now();
  try {
    for (let from = 0; from < n; from += batch) {
      const pipe = client.pipeline();
      for (let i = from; i < Math.min(n, from + batch); i += 1) {
        const at = now - (n - i);
        const p = i % partitions;
        const id = runIdAt(runIdBase(at, p), 0);
        const hook = `h${i % hooks}`;
        const topic = `t${(i % hooks) % topics}`;
        const status = statusFor(i);
        const finished = ['succeeded', 'skipped', 'discarded', 'failed'].includes(status);
        pipe.hset(keys.run(p, id), {
          id,
          hook,
          topic,
          status,
          payload: JSON.stringify({ order: i, note: 'benchmark' }),
          attempts: finished ? 1 : 0,
          acted: '',
          acted_ids: '[]',
          claim_intent: '',
          error: status === 'failed' ? '{"kind":"internal","message":"x"}' : '',
          result: status === 'succeeded' ? '{"ok":true}' : '',
          input: '',
          owner: '',
          until: '',
          token: finished ? 1 : 0,
          due: finished ? '' : at,
          delivery: '',
          resumable: '0',
          created: at,
          updated: at,
          started: finished ? at : '',
          finished: finished ? at : '',
          history: JSON.stringify([{ at, attempt: 0, event: 'kept' }]),
        });
        // The list indexes keep writes (lua/index.lua): every run, by hook, by topic, by status.
        for (const suffix of ['all', `h:${hook}`, `t:${topic}`, `s:${status}`]) {
          pipe.zadd(keys.index(p, suffix), 0, id);
        }
        if (!finished) pipe.zadd(keys.due(p), at, id);
        else if (status !== 'failed') pipe.zadd(keys.done(p), at, id);
      }
      await pipe.exec();
    }
  } finally {
    client.disconnect();
  }
  return Date.now() - started;
}

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * Measures `rounds` page reads of `limit` runs for each filter: half first
 * pages, half walking older pages by cursor. Returns {filter -> {p50, p99, max}} in ms.
 */
async function measureListPage({ url, prefix, partitions = 4, limit = 50, rounds = 200, filters }) {
  const stores = await createRedisStores({ url, prefix, partitions, commandTimeoutMs: 10_000 });
  const out = {};
  try {
    for (const filter of filters) {
      const times = [];
      let cursor = null;
      for (let i = 0; i < rounds; i += 1) {
        const t = process.hrtime.bigint();
        const page = await stores.runs.list(filter, limit, i % 2 === 0 ? null : cursor);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (i % 2 === 1 || cursor === null) cursor = page.nextCursor;
        if (page.runs.length === 0 && i === 0) throw new Error(`filter ${JSON.stringify(filter)} matched nothing`);
      }
      times.sort((a, b) => a - b);
      out[JSON.stringify(filter)] = {
        p50: +percentile(times, 0.5).toFixed(2),
        p99: +percentile(times, 0.99).toFixed(2),
        max: +times[times.length - 1].toFixed(2),
      };
    }
  } finally {
    await stores.close();
  }
  return out;
}

/** Deletes every key of `prefix` (hook keys `{prefix}:…` and partition keys `{prefix:p<n>}:…`). */
async function cleanup(url, prefix) {
  const client = new Redis(url);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'MATCH', `{${prefix}[:}]*`, 'COUNT', 5000);
      cursor = next;
      if (found.length > 0) deleted += await client.unlink(...found);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}

async function main() {
  const n = Number(process.argv[2] ?? 100_000);
  const url = process.argv[3] ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `listperf${Math.random().toString(36).slice(2, 8)}`;
  const partitions = 4;
  try {
    const fillMs = await fillRuns({ url, prefix, partitions, n });
    console.log(`filled ${n} runs in ${fillMs} ms (${partitions} partitions)`);
    const filters = [{}, { status: 'failed' }, { hook: 'h3' }, { topic: 't1' }, { status: 'pending', topic: 't1' }, { status: 'retry_wait', hook: 'h7' }];
    const result = await measureListPage({ url, prefix, partitions, limit: 50, rounds: 200, filters });
    for (const [filter, r] of Object.entries(result)) console.log(`list ${filter} limit 50: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms`);
  } finally {
    console.log(`cleaned up ${await cleanup(url, prefix)} keys`);
  }
}

module.exports = { fillRuns, measureListPage, cleanup };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
