#!/usr/bin/env node
/**
 * The ingress's run event feed with many agent calls waiting: CPU per run
 * event in the process that holds the feed, with 10 and with 1,000 calls
 * waiting, while another process publishes run events on real NATS (half
 * hooks' runs, half agent calls of runs nobody waits on, so each event is
 * what flows past the waiters, not theirs). Two ways of waiting, A/B in one
 * invocation:
 *   - `all`: each waiter listens to every event and picks its run
 *     (`feed.listen`: before issue 36, the agent door's way; the feed takes
 *     every run event off NATS);
 *   - `call`: each waiter listens to its run (`feed.listenCall`: the
 *     `<prefix>.events.run.*.agent.*` subscription, routed by run id).
 * CPU is process.cpuUsage() of the feed's process from the publisher's start
 * to the last event, divided by the events published (`picked`: events that
 * reached a waiter, 0 by design). Numbers from a busy machine say only
 * which way scales, not the quiet cost.
 *
 *   pnpm build && node test/bench/agent-waiters.js [events=20000] [rate=500]
 */
const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { createRunEventPublisher, createRunEventSubscriber } = require('../../packages/bus/dist');

const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const summary = (runId, hook) => ({
  run_id: runId,
  event: 'finished',
  at: new Date().toISOString(),
  hook,
  topic: 'bench',
  status: 'succeeded',
  attempts: 1,
  error_kind: null,
  error_message: null,
  created_at: new Date().toISOString(),
  finished_at: new Date().toISOString(),
  due_at: null,
  duration_ms: 1,
});

/** The child: publishes `events` run events at `rate`/s (in 10 ms slices), then one `end` event per kind. */
async function publish(prefix, events, rate) {
  const pub = await createRunEventPublisher({ url, prefix });
  const perSlice = Math.max(1, Math.round(rate / 100));
  for (let i = 0; i < events;) {
    for (let k = 0; k < perSlice && i < events; k++, i++)
      await pub.publish(i % 2 ? summary(`hook-run-${i}`, 'bench-hook') : summary(`call-run-${i}`, 'agent:bench'));
    await new Promise((r) => setTimeout(r, 10));
  }
  await pub.publish(summary('end', 'agent:bench'));
  await pub.close();
}

async function measure(mode, waiters, events, rate) {
  const prefix = `benchwait${randomBytes(4).toString('hex')}`;
  const feed = await createRunEventSubscriber({ url, prefix });
  const stops = [];
  let picked = 0;
  let first;
  let done;
  const ended = new Promise((r) => (done = r));
  // The end of the flow: both modes get the `end` call event (published last).
  stops.push(feed.listenCall('end', () => done(process.cpuUsage(first))));
  for (let w = 0; w < waiters; w++) {
    const runId = `waiting-${w}`;
    if (mode === 'all')
      stops.push(
        feed.listen((s) => {
          if (s.run_id === runId) picked += 1;
        }),
      );
    else stops.push(feed.listenCall(runId, () => (picked += 1)));
  }
  await feed.listening();
  first = process.cpuUsage();
  const child = fork(__filename, ['--publish', prefix, String(events), String(rate)], { stdio: 'inherit' });
  const used = await ended;
  await new Promise((r) => child.once('exit', r));
  for (const s of stops) s();
  const received = feed.received;
  await feed.close();
  const cpuUs = used.user + used.system;
  return { mode, waiters, events, received, picked, cpuUsPerEvent: Math.round((cpuUs / events) * 100) / 100 };
}

async function main() {
  if (process.argv[2] === '--publish') return publish(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
  const events = Number(process.argv[2] ?? 20000);
  const rate = Number(process.argv[3] ?? 500);
  const rows = [];
  for (const mode of ['all', 'call'])
    for (const waiters of [10, 1000]) {
      const r = await measure(mode, waiters, events, rate);
      console.log(JSON.stringify(r));
      rows.push(r);
    }
  for (const mode of ['all', 'call']) {
    const [few, many] = rows.filter((r) => r.mode === mode);
    console.log(
      `${mode}: ${few.cpuUsPerEvent} µs/event with 10 waiting, ${many.cpuUsPerEvent} with 1,000: ${(many.cpuUsPerEvent / few.cpuUsPerEvent).toFixed(2)}x`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
