import { createServer, type AddressInfo } from 'node:net';
import { createOutboundGuard, webhookTool } from '@hookyard/tools';
import { HookyardError } from '@hookyard/core';
import { freePort } from '../../../test/support/servers';
import { harness, hook, tableJq, testTool } from './fixtures';

/**
 * A call that never left is not a call: the real `webhook` tool against a
 * port nothing listens on (ECONNREFUSED) leaves the run not acted, retried
 * with the platform's backoff; the same tool against a server that takes the
 * request and drops the connection has acted, and the run is held.
 */
/** A loopback port nothing listens on (taken, then released). */
const closedPort = freePort;

// Loopback allowed for this test (HOOKS_OUTBOUND_ALLOW_NETS): the servers are on 127.0.0.1.
const webhook = () => webhookTool({ allowHosts: [], timeoutMs: 5_000, guard: createOutboundGuard({ allowNets: ['127.0.0.0/8'] }) });

describe('executor: a tool call that never left', () => {
  it('connection refused: the start is withdrawn, the run waits with the platform backoff, and its next attempt runs the condition again', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/hook`;
    const jq = tableJq({ '.go': () => [true], '{url: .url}': (input) => [{ url: (input as { url: string }).url }] });
    const h = harness({ jq, tools: [webhook()], settings: { retryBaseMs: 1000, maxAttempts: 3 } });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'webhook', condition: { content: '.go' }, start_expr: { content: '{url: .url}' } }));
    const [id] = await h.keep('gh', { url, go: true });
    await h.executor.handle(id!);
    const run = await h.stores.runs.get(id!);
    expect(run).toMatchObject({ status: 'retry_wait', attempts: 1, acted: '', input: null, error: { kind: 'unavailable' } });
    expect(run!.error!.message).toContain('ECONNREFUSED');
    expect(run!.due_at).toBe(new Date(h.clock.now() + 1000).toISOString());
    expect(run!.history.map((e) => e.event)).toEqual(['kept', 'claimed', 'acted', 'not_sent', 'retry_scheduled']);
    h.clock.advance(1000);
    jq.calls.length = 0;
    await h.executor.handle(id!);
    // Not a replay of a start: the condition and the door contract run again.
    expect(jq.calls).toContain('.go');
    expect((await h.stores.runs.get(id!))?.status).toBe('retry_wait');
  });

  it('a request the server read before dropping the connection has acted: held as failed after one call', async () => {
    const server = createServer((sock) => sock.once('data', () => sock.destroy()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const jq = tableJq({ '{url: .url}': (input) => [{ url: (input as { url: string }).url }] });
      const h = harness({ jq, tools: [webhook()] });
      await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'webhook', start_expr: { content: '{url: .url}' } }));
      const [id] = await h.keep('gh', { url });
      await h.executor.handle(id!);
      expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', attempts: 1, acted: 'start' });
    } finally {
      server.close();
    }
  });

  it("under the tool's own retry policy, a not-sent last call after a call that left is not withdrawn", async () => {
    const tool = testTool(
      't',
      async (_call, n) => {
        if (n === 1) throw new HookyardError('unavailable', 'reset after the request left');
        throw new HookyardError('unavailable', 'connect ECONNREFUSED', { notSent: true });
      },
      { retry: { max_attempts: 2, kinds: ['unavailable'], base_ms: 1, cap_ms: 1 } },
    );
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    expect(tool.calls).toHaveLength(2);
    expect(await h.stores.runs.get(id!)).toMatchObject({ status: 'failed', acted: 'start' });
  });
});
