'use strict';
/**
 * A full garbage collection in a child started with `--inspect=127.0.0.1:0`,
 * through the inspector protocol (HeapProfiler.collectGarbage), so a heap
 * figure read afterwards is the live heap, not whatever the collector had not
 * reached yet. Node's own WebSocket (global since Node 22).
 */
const { sleep } = require('./common');

/**
 * The inspector's WebSocket URL from the child's last "Debugger listening on ws://..." line, once it listens:
 * `hookyard serve` starts node again with its semi-space size (process.execve, packages/cli/bin/hookyard.js),
 * so the first node's line names an inspector that is gone, and the final node's comes before it listens.
 */
async function inspectorUrl(proc, timeoutMs = 10_000) {
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    let last = null;
    for (const l of proc.lines) {
      const m = /Debugger listening on (ws:\/\/\S+)/.exec(l);
      if (m) last = m[1];
    }
    if (last && proc.url) return last;
    await sleep(50);
  }
  throw new Error(`${proc.name} printed no inspector URL (started without --inspect=127.0.0.1:0?)`);
}

/** Runs `times` full collections in `proc` and resolves once the last one answered. */
async function collectGarbage(proc, times = 2) {
  const ws = new WebSocket(await inspectorUrl(proc));
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = (e) => reject(new Error(`inspector of ${proc.name}: ${e.message || 'connection failed'}`));
  });
  let id = 0;
  const waiting = new Map();
  ws.onmessage = (ev) => {
    const msg = JSON.parse(String(ev.data));
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`inspector ${msg.error.message}`));
    else w.resolve(msg.result);
  };
  const call = (method) =>
    new Promise((resolve, reject) => {
      id += 1;
      waiting.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    for (let i = 0; i < times; i++) await call('HeapProfiler.collectGarbage');
  } finally {
    ws.close();
  }
}

/** The child's Node flag that makes collectGarbage possible (loopback, a free port). */
const INSPECT_FLAG = '--inspect=127.0.0.1:0';

module.exports = { collectGarbage, INSPECT_FLAG };
