import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; status: 408 | 413; error: string } | { ok: false; status: 0; error: string };

/**
 * Reads a request body with a cap on the bytes actually read and a bound on
 * how long a slow client may take. Past the cap or the time it stops listening
 * at once (the caller answers 413 or 408 with `Connection: close` and drains
 * the rest with drainRefusedBody); a declared Content-Length over the cap is
 * refused before any byte.
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

/** How much of a refused body is read and thrown away after the 413, at most, and for how long. */
export interface DrainLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * After a 413 (or a 408 to a slow client) the rest of the body is still on its way. Closing the socket
 * with it unread makes the kernel answer with a reset, and a client that is
 * still writing (node's http, Python's requests) sees EPIPE/ECONNRESET instead
 * of the 413 it was sent. So: answer (Connection: close), half-close our side
 * once the answer is out, and keep reading and discarding until the client is
 * done, or `maxBytes` more arrived, or `maxMs` passed; then close for good.
 */
export function drainRefusedBody(req: IncomingMessage, limits: DrainLimits): void {
  const socket = req.socket;
  let seen = 0;
  const stop = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, limits.maxMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // node ends a Connection: close response with destroySoon (end, then destroy): keep the reading side open instead.
  (socket as unknown as { destroySoon: () => void }).destroySoon = () => {
    socket.end();
  };
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.maxBytes) stop();
  });
  req.once('end', stop);
  req.once('error', stop);
  req.resume();
}
