import { isSecretHeaderName } from './http-exchange';
import { KEPT_HEADERS, KEPT_HEADERS_MAX, KEPT_HEADER_MAX_CHARS, keptHeaders } from './kept-headers';

describe('the request headers a delivery keeps', () => {
  it('keeps only allowlisted names, never a credential even when sent', () => {
    const kept = keptHeaders({
      'Content-Type': 'application/json',
      'user-agent': 'GitHub-Hookshot/abc',
      'x-github-event': 'push',
      authorization: 'Bearer secret',
      cookie: 'sid=1',
      'x-hub-signature-256': 'sha256=abc',
      'stripe-signature': 't=1,v1=abc',
      'x-api-key': 'k',
      'x-slack-request-timestamp': '1',
      host: 'example.test',
      'x-unknown': 'u',
    });
    expect(kept).toEqual({ 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc', 'x-github-event': 'push' });
  });

  it('cuts each value and joins repeated ones; nothing kept gives an empty object', () => {
    const kept = keptHeaders({ 'x-request-id': 'x'.repeat(1000), 'x-correlation-id': ['a', 'b'], 'content-length': undefined });
    expect(kept['x-request-id']).toHaveLength(KEPT_HEADER_MAX_CHARS);
    expect(kept['x-correlation-id']).toBe('a, b');
    expect(Object.keys(kept)).toEqual(['x-request-id', 'x-correlation-id']);
    expect(keptHeaders({ authorization: 'x' })).toEqual({});
  });

  it('the allowlist is bounded and names no secret-like header', () => {
    expect(KEPT_HEADERS.length).toBeLessThanOrEqual(KEPT_HEADERS_MAX);
    for (const name of KEPT_HEADERS) {
      expect(name).toBe(name.toLowerCase());
      expect(isSecretHeaderName(name)).toBe(false);
    }
    const all = Object.fromEntries(KEPT_HEADERS.map((k) => [k, 'v']));
    expect(Object.keys(keptHeaders(all))).toHaveLength(Math.min(KEPT_HEADERS.length, KEPT_HEADERS_MAX));
  });
});
