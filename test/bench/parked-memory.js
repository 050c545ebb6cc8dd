#!/usr/bin/env node
/**
 * Redis bytes held per parked run, by key family: keeps N events (one hook,
 * one run each), claims and parks every run on a `wait` interaction through
 * the store (no processes), then sums MEMORY USAGE (SAMPLES 0: exact) of the
 * prefix's keys before and after, and reads INFO used_memory too (noisy on a
 * shared Redis). Deletes its keys at the end.
 *
 *   pnpm build && node test/bench/parked-memory.js [N=10000]
 */
const { randomBytes } = require('node:crypto');
const Redis = require('ioredis');
const { createRedisStores } = require('../../packages/store/dist');

const N = Number(process.argv[2] ?? 10000);
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `benchpark${randomBytes(4).toString('hex')}`;

function family(key) {
  const rest = key.slice(key.indexOf('}') + 2);
  if (rest.startsWith('run:')) return 'run hash';
  if (rest.startsWith('ix:')) return 'run list indexes';
  if (/^int:[0-9a-z]{44}$/.test(rest)) return 'interaction hash';
  if (rest.startsWith('int:')) return 'interaction indexes';
  return 'other (due, lease, hooks, meta)';
}

async function usage(admin) {
  const by = {};
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const sizes = await Promise.all(keys.map((k) => admin.memory('USAGE', k, 'SAMPLES', 0)));
    keys.forEach((k, i) => (by[family(k)] = (by[family(k)] ?? 0) + Number(sizes[i] ?? 0)));
  } while (cursor !== '0');
  return by;
}

async function main() {
  const admin = new Redis(url);
  const s = await createRedisStores({ url, prefix, partitions: 16 });
  try {
    const at = new Date().toISOString();
    await s.hooks.putHook({ name: 'waits', topic: 'opened', tool: 'wait', tool_kwargs: { timeout_seconds: 3600 }, created_at: at, updated_at: at });
    const before = await usage(admin);
    const usedBefore = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))[1]);
    const now = Date.now();
    for (let i = 0; i < N; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, N - i) }, async (_, j) => {
          const [k] = await s.runs.keepEvent({ topic: 'opened', payload: { pr: `acme/app#${i + j}`, action: 'opened' }, now, dispatchGraceMs: 15000 });
          const c = await s.runs.claim(k.id, 'bench', 30000, now);
          await s.runs.act(k.id, c.token, { acted: 'start', input: { timeout_seconds: 3600 }, resumable: true }, now);
          await s.interactions.park({
            run: k.id,
            token: c.token,
            kind: 'wait',
            tool: 'wait',
            argsHash: 'a'.repeat(64),
            onTimeout: 'fail',
            subject: { scope: 'repo', kind: 'pr', key: `acme/app#${i + j}` },
            expiresAt: now + 3600000,
            now,
          });
        }),
      );
    }
    const after = await usage(admin);
    const usedAfter = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))[1]);
    const fams = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    let total = 0;
    for (const f of fams) {
      const d = (after[f] ?? 0) - (before[f] ?? 0);
      total += d;
      console.log(`${f.padEnd(34)} ${(d / N).toFixed(0).padStart(6)} bytes per parked run`);
    }
    console.log(
      `${'total (MEMORY USAGE, exact)'.padEnd(34)} ${(total / N).toFixed(0).padStart(6)} bytes per parked run = ${Math.floor((1024 * 1024) / (total / N))} parked runs per MiB (N=${N})`,
    );
    console.log(`${'INFO used_memory delta (noisy)'.padEnd(34)} ${((usedAfter - usedBefore) / N).toFixed(0).padStart(6)} bytes per parked run`);
    console.log(`counts: ${JSON.stringify(await s.runs.counts())}`);
  } finally {
    await s.close();
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `{${prefix}*`, 'COUNT', 1000);
      cursor = next;
      await Promise.all(keys.map((k) => admin.del(k)));
    } while (cursor !== '0');
    admin.disconnect();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
