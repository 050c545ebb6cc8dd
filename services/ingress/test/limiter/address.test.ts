import { HookyardError } from '@hookyard/core';
import { createDoorLimiter, normalizeIp } from '../../src/limiter';

const limiterWith = (trustedProxies: string[]) => createDoorLimiter({ rate: 0, burst: 1, apiRate: 0, trustedProxies });

describe('clientAddress', () => {
  const limiter = limiterWith(['10.0.0.1', '192.168.0.0/16', 'fd00::/8']);

  it.each([
    ['untrusted peer: X-Forwarded-For ignored', '203.0.113.9', '1.2.3.4', '203.0.113.9'],
    ['no header', '10.0.0.1', undefined, '10.0.0.1'],
    ['trusted peer: the hop it saw', '10.0.0.1', '198.51.100.7', '198.51.100.7'],
    ['right-most untrusted hop, forged left entries ignored', '10.0.0.1', '6.6.6.6, 198.51.100.7, 192.168.4.4', '198.51.100.7'],
    ['IPv4-mapped peer is trusted as its IPv4', '::ffff:10.0.0.1', '198.51.100.7', '198.51.100.7'],
    ['IPv4-mapped hop normalised', '10.0.0.1', '::ffff:198.51.100.8', '198.51.100.8'],
    ['IPv6 proxy range, bracketed hop with port', 'fd12::1', '[2001:DB8::5]:4711', '2001:db8::5'],
    ['hop with a port', '10.0.0.1', '198.51.100.9:5555', '198.51.100.9'],
    ['all hops trusted: the left-most', '10.0.0.1', '192.168.1.1, 192.168.1.2', '192.168.1.1'],
    ['garbage hop stops at the last trusted', '10.0.0.1', 'not-an-ip, 192.168.1.2', '192.168.1.2'],
    ['untrusted IPv4-mapped peer normalised', '::ffff:203.0.113.9', '1.2.3.4', '203.0.113.9'],
  ])('%s', (_label, remote, xff, expected) => {
    expect(limiter.clientAddress(remote, xff)).toBe(expected);
  });

  it('believes nobody with an empty table', () => {
    expect(limiterWith([]).clientAddress('10.0.0.1', '1.2.3.4')).toBe('10.0.0.1');
  });
});

describe('settings', () => {
  it('refuses unreadable proxy entries and bad rates, one line each', () => {
    let err: unknown;
    try {
      createDoorLimiter({ rate: -1, burst: 0, apiRate: 1, trustedProxies: ['10.0.0.0/33', 'proxy.local', '10.0.0.1'] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HookyardError);
    expect((err as HookyardError).kind).toBe('bad_input');
    expect((err as HookyardError).details).toEqual([
      'rate (HOOKS_DOOR_RATE) must be a number >= 0, got -1',
      'burst (HOOKS_DOOR_BURST) must be a whole number >= 1, got 0',
      'HOOKS_TRUSTED_PROXIES entry "10.0.0.0/33" is not an IP address or CIDR range',
      'HOOKS_TRUSTED_PROXIES entry "proxy.local" is not an IP address or CIDR range',
    ]);
  });

  it('normalizeIp reads the forms proxies write', () => {
    expect(normalizeIp('::FFFF:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp(' 2001:DB8::1 ')).toBe('2001:db8::1');
    expect(normalizeIp('1.2.3')).toBeNull();
  });
});
