/**
 * Publish and consume rates of the JetStream run bus. Not a jest test:
 *   npx tsc -b packages/bus && node packages/bus/test/bench-jetstream.js [ids]
 * Uses NATS_URL (default nats://127.0.0.1:4222) and a throwaway stream it deletes;
 * BUS_STORAGE=file|memory (default file, as the bus) picks the stream's storage.
 */
const { randomBytes } = require('node:crypto');
const { connect } = require('nats');
const { createJetStreamBus } = require('../dist');

const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const total = Number(process.argv[2] || 20000);

const ids = (label, n) => Array.from({ length: n }, (_, i) => `${label}-${i}`);
const rate = (n, ms) => `${Math.round((n / ms) * 1000).toLocaleString('en')} ids/s (${n} ids in ${ms.toFixed(0)} ms)`;

/** Publishes `total` ids as calls of `perCall` ids, `callers` calls in flight at once. */
async function publishAll(bus, label, perCall, callers) {
  const all = ids(label, total);
  const calls = [];
  for (let i = 0; i < all.length; i += perCall) calls.push(all.slice(i, i + perCall));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls.length) await bus.publish(calls[next++]);
    }),
  );
  return performance.now() - t0;
}

async function consumeAll(bus, expected, concurrency) {
  let seen = 0;
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  const t0 = performance.now();
  const sub = await bus.subscribe(
    async () => {
      seen += 1;
      if (seen === expected) resolveDone();
    },
    { concurrency },
  );
  await done;
  const ms = performance.now() - t0;
  await sub.stop();
  return ms;
}

async function main() {
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const admin = await connect({ servers: url });
  const bus = await createJetStreamBus({ url, prefix, storage: process.env.BUS_STORAGE || 'file' });
  try {
    const shapes = [
      { perCall: 1, callers: 1, note: '1 id per publish, one caller (a round trip each)' },
      { perCall: 1, callers: 64, note: '1 id per publish, 64 concurrent callers' },
      { perCall: 10, callers: 16, note: '10 ids per publish (an event with 10 hooks), 16 callers' },
      { perCall: 1000, callers: 1, note: '1000 ids per publish (10 messages of 100), one caller' },
    ];
    for (const [i, s] of shapes.entries()) {
      const ms = await publishAll(bus, `p${i}`, s.perCall, s.callers);
      console.log(`publish  ${s.note}: ${rate(total, ms)}`);
      // Drain it again so each shape starts from an empty stream.
      const cms = await consumeAll(bus, total, 64);
      console.log(`consume  concurrency 64, messages of ${Math.min(s.perCall, 100)} id(s): ${rate(total, cms)}`);
    }
    for (const concurrency of [1, 16]) {
      await publishAll(bus, `c${concurrency}`, 100, 4);
      const cms = await consumeAll(bus, total, concurrency);
      console.log(`consume  concurrency ${concurrency}, messages of 100 ids: ${rate(total, cms)}`);
    }
  } finally {
    await bus.close();
    const jsm = await admin.jetstreamManager();
    await jsm.streams.delete(`${prefix.toUpperCase()}_RUNS`).catch(() => undefined);
    await admin.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
