import { BlockList, isIP } from 'node:net';

/**
 * The address a request comes from, for the flood limiter. X-Forwarded-For is
 * believed only when the peer is a configured trusted proxy: anyone else could
 * write any address there and spread one flood over a million keys.
 */

/** `::ffff:10.0.0.1` -> `10.0.0.1`; `[::1]:443` -> `::1`; `10.0.0.1:80` -> `10.0.0.1`; not an address -> null. */
export function normalizeIp(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed?.[1]) s = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(s);
  if (mapped?.[1]) s = mapped[1];
  const version = isIP(s);
  if (version === 0) return null;
  return version === 6 ? s.toLowerCase() : s;
}

/** Builds the trusted-proxy table from addresses and CIDR ranges; one line per entry it cannot read. */
export function parseTrustedProxies(entries: readonly string[]): { table: BlockList; errors: string[] } {
  const table = new BlockList();
  const errors: string[] = [];
  for (const entry of entries) {
    const [addr = '', bits, extra] = entry.trim().split('/');
    const ip = normalizeIp(addr);
    const family = ip === null ? 0 : isIP(ip);
    const prefix = bits === undefined ? undefined : Number(bits);
    const maxBits = family === 6 ? 128 : 32;
    if (
      ip === null ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits && /^\d+$/.test(bits ?? '')))
    ) {
      errors.push(`HOOKS_TRUSTED_PROXIES entry ${JSON.stringify(entry)} is not an IP address or CIDR range`);
      continue;
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) table.addAddress(ip, type);
    else table.addSubnet(ip, prefix, type);
  }
  return { table, errors };
}

function trusted(table: BlockList, ip: string): boolean {
  return table.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The right-most hop that is not a trusted proxy. Each trusted proxy appends the
 * peer it saw, so walking from the right stops at the first address nobody we
 * trust vouches past. An unreadable entry stops the walk at the last trusted hop.
 */
export function clientAddressFrom(table: BlockList, remoteAddress: string, xForwardedFor: string | undefined): string {
  const remote = normalizeIp(remoteAddress) ?? remoteAddress;
  if (!xForwardedFor || !trusted(table, remote)) return remote;
  let current = remote;
  const hops = xForwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalizeIp(hops[i] ?? '');
    if (hop === null) return current;
    current = hop;
    if (!trusted(table, hop)) return hop;
  }
  return current; // every hop trusted: the left-most is the best we know
}
