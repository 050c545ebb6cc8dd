#!/usr/bin/env node
'use strict';
/**
 * Idle footprint of each role: `hookyard serve --role ingress|scheduler|executor`
 * started as the bench starts them (own key and NATS prefix on the shared Redis
 * and NATS), left alone for N seconds, then RSS from /proc and V8's heap by
 * space from each role's /metrics (prom-client's default metrics). With
 * `--burst N`, N events (1 KB, 50 connections, as fast as they go) on a topic
 * whose hook calls echo come first, then the same figures once every run
 * finished ("loaded"), then again after the idle seconds.
 *
 *   node test/bench/role-memory.js [--seconds 30] [--burst 5000] [--roles ingress,scheduler,executor]
 *   BENCH_NODE_OPTIONS=--max-semi-space-size=64 node test/bench/role-memory.js    (every role's NODE_OPTIONS: an A/B of V8 flags)
 */
const { randomBytes } = require('node:crypto');
const { log, sleep, until } = require('./lib/common');
const { startStack, registerHook, metricOver } = require('./lib/hookyard');
const { runLoad } = require('./lib/load');
const { cleanup } = require('./lib/infra');

function parse(argv) {
  const a = { seconds: 30, burst: 0, roles: ['ingress', 'scheduler', 'executor'] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => argv[++i];
    if (k === '--seconds') a.seconds = Number(val());
    else if (k === '--burst') a.burst = Number(val());
    else if (k === '--roles') a.roles = val().split(',');
    else throw new Error(`unknown option ${k}`);
  }
  return a;
}

/** Sums of the default metrics this reads, in bytes, by name (and by heap space). */
async function heapOf(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = { spaces: {} };
  for (const line of text.split('\n')) {
    let m = /^hookyard_nodejs_heap_space_size_total_bytes\{space="([a-z_]+)"[^}]*\} (\S+)/.exec(line);
    if (m) out.spaces[m[1]] = Number(m[2]);
    m = /^hookyard_nodejs_(heap_size_total_bytes|heap_size_used_bytes|external_memory_bytes)(\{[^}]*\})? (\S+)/.exec(line);
    if (m) out[m[1]] = Number(m[3]);
  }
  return out;
}

const mib = (b) => (b == null ? '-' : (b / 2 ** 20).toFixed(1));

async function main() {
  const args = parse(process.argv.slice(2));
  const prefix = `bench${randomBytes(4).toString('hex')}idle`;
  let stack;
  try {
    stack = await startStack(prefix, args.roles);
    const sample = async (label) => {
      console.log(`${label}; NODE_OPTIONS: ${stack.env.NODE_OPTIONS ?? '(none)'}`);
      console.log('role        RSS   peak  heap total  heap used  external  new space  old space  code space  (MiB)');
      for (const r of args.roles) {
        const p = stack.byRole[r];
        const x = { ...p.memory(), ...(await heapOf(p.url)) };
        console.log(
          [
            r.padEnd(10),
            mib(x.rss).padStart(5),
            mib(x.hwm).padStart(6),
            mib(x.heap_size_total_bytes).padStart(11),
            mib(x.heap_size_used_bytes).padStart(10),
            mib(x.external_memory_bytes).padStart(9),
            mib(x.spaces.new).padStart(10),
            mib(x.spaces.old).padStart(10),
            mib(x.spaces.code).padStart(11),
          ].join(' '),
        );
      }
    };
    if (args.burst > 0 && stack.byRole.ingress && stack.byRole.executor) {
      const ingress = stack.byRole.ingress.url;
      await registerHook(ingress, 'b1', 'bench');
      const executors = [stack.byRole.executor];
      const base = await metricOver(executors, 'succeeded_total');
      const load = await runLoad({ url: `${ingress}/universal_webhook/bench`, bodyBytes: 1024, connections: 50, amount: args.burst });
      await until(async () => ((await metricOver(executors, 'succeeded_total')) - base >= load.ok ? true : undefined), 120_000, 'the burst to finish');
      await sample(`after ${load.ok} events (50 connections)`);
    }
    log(`idle for ${args.seconds} s`);
    await sleep(args.seconds * 1000);
    await sample(`idle ${args.seconds} s`);
  } finally {
    if (stack) await Promise.all(stack.procs.map((p) => p.stop()));
    await cleanup([prefix]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
