import { HTTP_EXCHANGE_BODY_BYTES, HTTP_EXCHANGE_HEADER_CHARS, HTTP_EXCHANGE_MAX_HEADERS, httpExchange, isSecretHeaderName } from './http-exchange';

describe("an HTTP tool's reply as kept", () => {
  it('redacts credentials, cookies and token-, key- or secret-like headers; drops hop-by-hop ones', () => {
    const headers = new Headers({
      Authorization: 'Bearer a',
      'Set-Cookie': 'sid=1',
      'X-Api-Key': 'k',
      'X-Auth-Token': 't',
      'X-Client-Secret': 's',
      'X-Hub-Signature-256': 'sig',
      Connection: 'keep-alive',
      'Content-Type': 'text/plain',
      'Retry-After': '30',
    });
    const x = httpExchange(503, headers, 'busy');
    expect(x.headers).toEqual({
      authorization: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': '[redacted]',
      'x-auth-token': '[redacted]',
      'x-client-secret': '[redacted]',
      'x-hub-signature-256': '[redacted]',
      'content-type': 'text/plain',
      'retry-after': '30',
    });
    expect(['content-type', 'retry-after', 'x-request-id'].some(isSecretHeaderName)).toBe(false);
  });

  it('bounds the header count, each value and the body (cut on a character boundary)', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 40; i += 1) many[`x-h${String(i).padStart(2, '0')}`] = 'v'.repeat(1000);
    const body = '€'.repeat(1000); // 3000 bytes
    const x = httpExchange(200, many, body);
    expect(Object.keys(x.headers)).toHaveLength(HTTP_EXCHANGE_MAX_HEADERS);
    expect(x.headers['x-h00']).toHaveLength(HTTP_EXCHANGE_HEADER_CHARS + 1);
    expect(Buffer.byteLength(x.body)).toBeLessThanOrEqual(HTTP_EXCHANGE_BODY_BYTES);
    expect(x.body).toBe('€'.repeat(Math.floor(HTTP_EXCHANGE_BODY_BYTES / 3)));
    expect(x).toMatchObject({ status: 200, body_bytes: 3000, body_truncated: true });
    expect(httpExchange(204, {}, '')).toEqual({ status: 204, headers: {}, body: '', body_bytes: 0, body_truncated: false });
  });
});
