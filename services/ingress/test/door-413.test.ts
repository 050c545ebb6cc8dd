import { request } from 'node:http';
import { connect } from 'node:net';
import { startHarness, type Harness } from './support/harness';

/**
 * A body over the cap is answered 413, and a plain node http client that is
 * still writing its body reads that answer: the door keeps reading and
 * discarding (bounded) instead of closing on unread bytes, which the kernel
 * turns into a reset (EPIPE / ECONNRESET on the client before the answer).
 */
function postStreaming(url: string, totalBytes: number, declareLength: boolean, oneWrite = false): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'text/plain' };
    if (declareLength) headers['Content-Length'] = totalBytes;
    const req = request(`${url}/universal_webhook/orders`, { method: 'POST', headers, agent: false });
    let settled = false;
    const done = (v: { status?: number; body?: string; error?: string }) => {
      if (!settled) resolve(v);
      settled = true;
    };
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode, body }));
      res.on('error', (err) => done({ error: `${(err as NodeJS.ErrnoException).code ?? err.message} after the status` }));
    });
    req.on('error', (err) => done({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    // Written in chunks, as a client streaming a file would.
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < totalBytes) {
        const n = Math.min(chunk.length, totalBytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end();
    };
    if (oneWrite) req.end(Buffer.alloc(totalBytes, 0x61));
    else pump();
  });
}

describe('door: an oversized body', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { bodyMaxBytes: 64 * 1024 } });
  });
  afterAll(() => h.close());

  it.each([
    ['chunked, read past the cap', false],
    ['declared Content-Length over the cap', true],
  ])('%s: a node http client reads the 413', async (_what, declared) => {
    for (let i = 0; i < 5; i++) {
      const got = await postStreaming(h.url, 1024 * 1024, declared);
      expect(got).toEqual({ status: 413, body: '{"error":"body too large: the limit is 65536 bytes (HOOKS_BODY_MAX_BYTES)"}' });
    }
  });

  it.each([
    ['one write of 8 MiB, declared', true],
    ['one write of 8 MiB, chunked', false],
  ])('%s: a node http client reads the 413', async (_what, declared) => {
    for (let i = 0; i < 5; i++) {
      const got = await postStreaming(h.url, 8 * 1024 * 1024, declared, true);
      expect(got).toEqual({ status: 413, body: '{"error":"body too large: the limit is 65536 bytes (HOOKS_BODY_MAX_BYTES)"}' });
    }
  });

  it('keeps reading after the 413 instead of resetting a client that is still sending', async () => {
    const { hostname, port } = new URL(h.url);
    const outcome = await new Promise<{ answer: string; error?: string }>((resolve) => {
      const socket = connect(Number(port), hostname);
      let answer = '';
      let error: string | undefined;
      socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
      socket.on('close', () => resolve({ answer, error }));
      socket.on('data', (c: Buffer) => {
        const first = answer === '';
        answer += c.toString('latin1');
        if (!first) return;
        // The 413 is here; the rest of the body is still "on its way": send it, a piece at a time.
        let left = 20;
        const more = (): void => {
          if (left-- === 0) return void socket.end();
          socket.write(Buffer.alloc(32 * 1024, 0x62), () => setTimeout(more, 5));
        };
        more();
      });
      socket.write('POST /universal_webhook/orders HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1048576\r\n\r\n');
      socket.write(Buffer.alloc(128 * 1024, 0x61));
    });
    expect(outcome.answer).toMatch(/^HTTP\/1.1 413/);
    expect(outcome.answer).toContain('{"error":"body too large: the limit is 65536 bytes (HOOKS_BODY_MAX_BYTES)"}');
    expect(outcome.error).toBeUndefined();
  });

  it('the door still answers afterwards', async () => {
    const r = await h.call('/universal_webhook/orders', { method: 'POST', body: '{"ok":1}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
  });
});
