import type { ServerResponse } from 'node:http';

/** On every response, door and API: no MIME sniffing, nothing cached by a proxy or browser. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/**
 * Writes a JSON answer straight onto node's response (the door's fast path:
 * one writeHead, no express helpers). `close` asks node to drop the connection
 * after the answer, used when a request body was left unread.
 */
export function sendJson(res: ServerResponse, status: number, body: string, extra?: Record<string, string>, close = false): void {
  if (res.headersSent) return;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  };
  if (extra) Object.assign(headers, extra);
  if (close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
}
