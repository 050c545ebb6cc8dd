import { connect } from 'node:net';
import { hook, startHarness, type Harness } from './support/harness';

/**
 * A client too slow with its body is answered 408, and then the rest of its
 * body is read and discarded (bounded), as after a 413: closing on unread
 * bytes makes the kernel answer the client's next write with a reset, so a
 * client still sending sees ECONNRESET/EPIPE instead of the 408 it was sent.
 */
describe('door: a body too slow to arrive', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { bodyMaxBytes: 1024 * 1024 }, deps: { doorReadTimeoutMs: 300 } });
    const put = await h.call('/api/hooks', { method: 'POST', role: 'admin', json: hook('slow-orders', 'orders') });
    expect(put.status).toBeLessThan(300);
  });
  afterAll(() => h.close());

  /** Sends the head and part of the body, waits for the answer, then sends the rest piece by piece over a raw socket. */
  function slowClient(pieces: number): Promise<{ answer: string; error?: string; sentAfter: number }> {
    const { hostname, port } = new URL(h.url);
    return new Promise((resolve) => {
      // Half-open allowed: the client goes on writing after the server's FIN, as one streaming a file does.
      const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
      let answer = '';
      let error: string | undefined;
      let sentAfter = 0;
      socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
      socket.on('close', () => resolve({ answer, error, sentAfter }));
      socket.on('data', (c: Buffer) => {
        const first = answer === '';
        answer += c.toString('latin1');
        if (!first) return;
        // The 408 is here; the client, unaware, goes on sending its body.
        let left = pieces;
        const more = (): void => {
          if (left-- === 0) return void socket.end();
          socket.write(Buffer.alloc(16 * 1024, 0x62), (err) => {
            if (err) return void (error ??= (err as NodeJS.ErrnoException).code ?? err.message);
            sentAfter++;
            setImmediate(more);
          });
        };
        more();
      });
      socket.write('POST /universal_webhook/orders HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 524288\r\n\r\n');
      socket.write(Buffer.alloc(1024, 0x61));
    });
  }

  it('answers 408 and keeps reading, so a client still sending reads the answer and is not reset', async () => {
    for (let i = 0; i < 3; i++) {
      const outcome = await slowClient(24);
      expect(outcome.answer).toMatch(/^HTTP\/1.1 408/);
      expect(outcome.answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(outcome.answer).toContain('{"error":"request body not received in time"}');
      expect(outcome).toMatchObject({ error: undefined, sentAfter: 24 });
    }
    // Nothing of it was kept.
    expect((await h.stores.runs.list({}, 10)).runs).toEqual([]);
  });

  it('the door still answers afterwards', async () => {
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: '{"ok":1}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'accepted', runs: 1 });
  });
});
