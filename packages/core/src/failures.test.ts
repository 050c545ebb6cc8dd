import { FAILURE_MESSAGE_SCAN_MAX, FINGERPRINT_PATTERN, failureFingerprint, groupFailures, maskFailureMessage } from './failures';

describe('maskFailureMessage', () => {
  it.each([
    ['connect ECONNREFUSED 10.0.0.5:8080', 'connect ECONNREFUSED <ip>'],
    ['connect ECONNREFUSED [::1]:9090', 'connect ECONNREFUSED <ip>'],
    ['connect ECONNREFUSED ::1', 'connect ECONNREFUSED <ip>'],
    ['no route to fe80::1ff:fe23:4567:890a', 'no route to <ip>'],
    ['host 2001:0db8:85a3:0000:0000:8a2e:0370:7334 down', 'host <ip> down'],
    ['getaddrinfo ENOTFOUND api.example.com', 'getaddrinfo ENOTFOUND <host>'],
    ['connect ETIMEDOUT db.internal.example:5432', 'connect ETIMEDOUT <host>'],
    ['socket hang up on localhost:3000', 'socket hang up on <host>'],
    ['POST https://user:pw@api.example.com:8443/v1/orders/123?id=77&token=abc failed', 'POST https://<host>/v1/orders/<n>?id=<v>&token=<v> failed'],
    ['fetch (http://10.1.2.3/hooks).', 'fetch (http://<host>/hooks).'],
    ['quota exceeded for ann.lee+ops@example.co.uk', 'quota exceeded for <email>'],
    ['order 3f2b8a1e-9c4d-4e5f-a6b7-c8d9e0f1a2b3 not found', 'order <uuid> not found'],
    ['run 0mhx5d3k0000a1b2c3d40100 lost its lease', 'run <id> lost its lease'],
    ['sha256 mismatch: got deadbeef0123456789abcdef', 'sha256 mismatch: got <id>'],
    ['stripe charge ch_3MqYzL2eZvKYlo2C0n1x failed', 'stripe charge <id> failed'],
    ['flags 0x1F00 set', 'flags <n> set'],
    ['timed out after 30000 ms (attempt 3 of 5)', 'timed out after <n> ms (attempt <n> of <n>)'],
    ['took 1.25s, limit 500ms', 'took <n>s, limit <n>ms'],
    ['lease lapsed at 2026-03-01T10:00:00.123Z', 'lease lapsed at <time>'],
    ['HTTP 503 Service   Unavailable\n  retry later', 'HTTP <n> Service Unavailable retry later'],
    // Kept: upper-case codes, words with digits in them, names.
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION from http2 peer', 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION from http2 peer'],
    ["hook tool 'ghost' is not a registered tool", "hook tool 'ghost' is not a registered tool"],
    ['Cannot index string with "b"', 'Cannot index string with "b"'],
    ['', ''],
  ])('%j reads %j', (message, want) => {
    expect(maskFailureMessage(message)).toBe(want);
  });

  it('masks only the first FAILURE_MESSAGE_SCAN_MAX characters (a huge message costs a bounded time)', () => {
    const huge = `boom ${'x'.repeat(FAILURE_MESSAGE_SCAN_MAX * 10)}`;
    expect(maskFailureMessage(huge)).toHaveLength(FAILURE_MESSAGE_SCAN_MAX);
    expect(failureFingerprint(huge)).toBe(failureFingerprint(`${huge}tail that differs`));
  });
});

describe('failureFingerprint', () => {
  it.each([
    ['connect ECONNREFUSED 10.0.0.5:8080', 'connect ECONNREFUSED 10.0.0.7:9090'],
    ['connect ECONNREFUSED 10.0.0.5:8080', 'connect ECONNREFUSED [2001:db8::7]:443'],
    ['order 3f2b8a1e-9c4d-4e5f-a6b7-c8d9e0f1a2b3 not found', 'order 00000000-0000-4000-8000-000000000000 not found'],
    ['timed out after 30000 ms', 'timed out after 5 ms'],
    ['GET https://a.example.com/users/12?page=3 answered 502', 'GET https://b.example.org/users/9876?page=1 answered 500'],
    ['quota exceeded for ann@example.com', 'quota exceeded for bob@example.org'],
    ['run 0mhx5d3k0000a1b2c3d40100 lost its lease', 'run 0mhx5d3k0001ffee0011aa0200 lost its lease'],
  ])('%j and %j share a fingerprint', (a, b) => {
    expect(failureFingerprint(a)).toBe(failureFingerprint(b));
    expect(failureFingerprint(a)).toMatch(FINGERPRINT_PATTERN);
  });

  it.each([
    ['connect ECONNREFUSED 10.0.0.5:8080', 'connect ETIMEDOUT 10.0.0.5:8080'],
    ['GET https://a.example.com/users/12 answered 502', 'GET https://a.example.com/orders/12 answered 502'],
    ["hook tool 'ghost' is not a registered tool", "hook tool 'ghoul' is not a registered tool"],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE'],
  ])('%j and %j do not', (a, b) => {
    expect(failureFingerprint(a)).not.toBe(failureFingerprint(b));
  });
});

describe('groupFailures', () => {
  const run = (id: string, hook: string, kind: 'unavailable' | 'bad_input' | null, message: string, at: string) => ({
    id,
    hook,
    error: kind ? { kind, message } : null,
    finished_at: at,
    updated_at: at,
  });

  it('groups by hook, kind and fingerprint; counts, first and last seen, the latest as the sample; most runs first', () => {
    const groups = groupFailures([
      run('r1', 'orders', 'unavailable', 'connect ECONNREFUSED 10.0.0.5:8080', '2026-03-01T10:00:00.000Z'),
      run('r3', 'orders', 'unavailable', 'connect ECONNREFUSED 10.0.0.9:8080', '2026-03-01T10:02:00.000Z'),
      run('r2', 'orders', 'unavailable', 'connect ECONNREFUSED 10.0.0.7:9090', '2026-03-01T10:01:00.000Z'),
      // Same message, another kind or another hook: other groups.
      run('r4', 'orders', 'bad_input', 'connect ECONNREFUSED 10.0.0.5:8080', '2026-03-01T10:03:00.000Z'),
      run('r5', 'billing', 'unavailable', 'connect ECONNREFUSED 10.0.0.5:8080', '2026-03-01T10:04:00.000Z'),
      run('r6', 'billing', 'unavailable', 'connect ECONNREFUSED 10.0.0.6:8080', '2026-03-01T10:05:00.000Z'),
      // No error: not grouped.
      run('r7', 'orders', null, '', '2026-03-01T10:06:00.000Z'),
    ]);
    const fp = failureFingerprint('connect ECONNREFUSED 10.0.0.5:8080');
    expect(groups).toEqual([
      {
        hook: 'orders',
        kind: 'unavailable',
        fingerprint: fp,
        pattern: 'connect ECONNREFUSED <ip>',
        sample_message: 'connect ECONNREFUSED 10.0.0.9:8080',
        sample_run: 'r3',
        count: 3,
        first_seen: '2026-03-01T10:00:00.000Z',
        last_seen: '2026-03-01T10:02:00.000Z',
      },
      expect.objectContaining({ hook: 'billing', kind: 'unavailable', fingerprint: fp, count: 2, sample_run: 'r6', first_seen: '2026-03-01T10:04:00.000Z' }),
      expect.objectContaining({ hook: 'orders', kind: 'bad_input', fingerprint: fp, count: 1, sample_run: 'r4' }),
    ]);
  });

  it('nothing failed: no groups', () => {
    expect(groupFailures([])).toEqual([]);
  });
});
