'use strict';
/**
 * The waiters section's client, in its own process (forked, IPC): the
 * official MCP SDK's Client over StreamableHTTPClientTransport, one session,
 * holding `tools/call`s of `echo` open while an approval gates them. Each call
 * has its own arguments ({n, text}), so no two join. A call the door answers
 * "still waiting" (its HOOKS_AGENT_WAIT_SECONDS passed) is made again with the
 * same arguments, which joins the same run; a call ends when its answer is an
 * outcome (the bench denies them at clean-up).
 *
 *   fork(mcp-waiters.js, [JSON {url, token, timeoutMs}])
 *   parent -> child: {op: 'open', from, count} | {op: 'close'}
 *   child -> parent: {ready: true} | {opened: count} | {ended: n, status} | {error: message}
 */
const { requireFrom } = require('./lib/common');

const sdk = (p) => requireFrom('services/ingress', `@modelcontextprotocol/sdk/${p}`);
const { Client } = sdk('client/index.js');
const { StreamableHTTPClientTransport } = sdk('client/streamableHttp.js');

/** Statuses of a call still waiting (the door answers them as "still waiting", not as an outcome). */
const WAITING = new Set(['pending', 'running', 'retry_wait', 'parked']);

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const headers = cfg.token ? { authorization: `Bearer ${cfg.token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } });
  const client = new Client({ name: 'hookyard-bench-waiters', version: '0.1.0' });
  await client.connect(transport);
  let again = 0;

  /** One call held open until its answer is an outcome; reports how it ended. */
  const hold = async (n) => {
    for (;;) {
      let status;
      try {
        const r = await client.callTool({ name: 'echo', arguments: { n, text: 'waiting' } }, undefined, { timeout: cfg.timeoutMs });
        status = r._meta && r._meta['hookyard/status'];
      } catch (err) {
        process.send({ ended: n, status: 'error', message: String(err && err.message).slice(0, 300) });
        return;
      }
      if (!WAITING.has(status)) {
        process.send({ ended: n, status, again });
        return;
      }
      again += 1;
    }
  };

  process.on('message', (msg) => {
    if (msg.op === 'open') {
      for (let i = 0; i < msg.count; i++) void hold(msg.from + i);
      process.send({ opened: msg.count });
    } else if (msg.op === 'close') {
      void (async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
        process.exit(0);
      })();
    }
  });
  process.send({ ready: true });
}

main().catch((err) => {
  if (process.send) process.send({ error: String(err && err.stack ? err.stack : err).slice(0, 2000) });
  process.exit(1);
});
