import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy that adds `Authorization: Bearer <token>` to each
 * request and changes nothing else: the method, path, every other header as
 * sent (Host and Origin included, so the door's DNS-rebinding check sees what
 * the client sent) and the body go through as they are; the answer comes back
 * with its status and headers, its body streamed chunk by chunk (SSE included).
 * It exists because the conformance CLI's server mode sends no headers of its
 * own and /mcp takes only a bearer agent token.
 */
export interface BearerProxy {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Requests forwarded so far. */
  forwarded: number;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (`http://host:port`). */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const state = { forwarded: 0 };
  const server: Server = createServer((req, res) => {
    // The raw header pairs in their order, minus any Authorization the client sent, plus ours.
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i]!.toLowerCase() !== 'authorization') headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    }
    headers.push('Authorization', `Bearer ${token}`);
    state.forwarded++;
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, setHost: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
      // Each chunk as it arrives: an SSE event reaches the client when the door sends it.
      res.flushHeaders();
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    // The client went away before the answer ended: so does the request upstream (as a direct connection would).
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get forwarded() {
      return state.forwarded;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
