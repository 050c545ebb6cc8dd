import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; status: 408 | 413; error: string } | { ok: false; status: 0; error: string };

/**
 * Reads a request body with a cap on the bytes actually read and a bound on
 * how long a slow client may take. Past the cap it stops listening at once
 * (the caller answers 413 with `Connection: close`, so the rest is never
 * read); a declared Content-Length over the cap is refused before any byte.
 * Status 0 means the client went away: there is nobody to answer.
 */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    return Promise.resolve({ ok: false, status: 413, error: 'body too large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyResult) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish({ ok: false, status: 413, error: 'body too large' });
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onGone = () => finish({ ok: false, status: 0, error: 'client went away' });
    const timer = setTimeout(() => finish({ ok: false, status: 408, error: 'request body not received in time' }), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
  });
}
