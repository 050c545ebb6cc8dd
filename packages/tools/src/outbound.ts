import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';
import { HookyardError } from '@hookyard/core';
import type { FetchFn } from './http-call';

/**
 * The guard on every HTTP call Hookyard makes on a record's behalf (the
 * webhook tool, registered HTTP services, OpenAPI documents and operations,
 * MCP over HTTP). Only public unicast addresses are reached unless
 * `HOOKS_OUTBOUND_ALLOW_NETS` names a range: loopback, link-local (cloud
 * metadata at 169.254.169.254), private, carrier-grade NAT, unique-local,
 * multicast and reserved ranges are refused. The name is resolved once, every
 * address it resolves to is checked, and the socket connects to the checked
 * address (the agent's own `lookup`), so a name that answers differently the
 * second time (DNS rebinding) gains nothing. Redirects are never followed.
 * gRPC channels (calls and reflection) dial the address `checkedAddress`
 * answered, with the name as authority and TLS server name. A refusal is
 * `forbidden` and `notSent`: nothing of the request left.
 */
export interface OutboundGuard {
  /** fetch through the guard: `forbidden` for a refused destination, `redirect: 'manual'` always. */
  fetch: FetchFn;
  /** As `fetch`, but only addresses in HOOKS_OUTBOUND_ALLOW_NETS (the webhook tool's rule for a host it does not list). */
  fetchAllowedNetsOnly: FetchFn;
  /**
   * Resolves `host` (a name or an IP literal), checks every address it
   * resolves to, and answers the one to connect to: `forbidden` (notSent)
   * naming the address when one is refused, `unavailable` (notSent) when the
   * name resolves to nothing.
   */
  checkedAddress(host: string): Promise<LookupAddress>;
  /** Why `address` (an IP literal) may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined;
  /** True when `address` lies in an explicitly allowed range (HOOKS_OUTBOUND_ALLOW_NETS). */
  explicitlyAllowed(address: string): boolean;
  close(): Promise<void>;
}

export interface OutboundGuardOptions {
  /** CIDR ranges reachable although not public (HOOKS_OUTBOUND_ALLOW_NETS), e.g. 127.0.0.0/8 for tests and laptops. */
  allowNets: readonly string[];
  /** Name resolution (default dns.lookup); injected by tests to resolve a name to a chosen address. */
  lookup?: (host: string) => Promise<LookupAddress[]>;
}

// undici loads with the first outbound call, not with this package: the ingress (a refusing guard) and an executor
// whose tools make no HTTP call never hold it (about 1 MiB of heap).
let undiciModule: typeof import('undici') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const undici = () => (undiciModule ??= require('undici') as typeof import('undici'));

/** The code a refused connection carries through undici's error chain. */
const REFUSED = 'ERR_HOOKYARD_OUTBOUND_REFUSED';

/** One line per bad entry; the parsed ranges otherwise. */
export function parseAllowNets(entries: readonly string[]): { nets: [ipaddr.IPv4 | ipaddr.IPv6, number][]; errors: string[] } {
  const nets: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    try {
      nets.push(
        entry.includes('/')
          ? ipaddr.parseCIDR(entry)
          : (() => {
              const a = ipaddr.parse(entry);
              return [a, a.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
            })(),
      );
    } catch {
      errors.push(`HOOKS_OUTBOUND_ALLOW_NETS: ${JSON.stringify(entry)} is not an address or CIDR range`);
    }
  }
  return { nets, errors };
}

function normalize(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const a = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  // ::ffff:127.0.0.1 is 127.0.0.1.
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

export function createOutboundGuard(options: OutboundGuardOptions): OutboundGuard {
  const { nets, errors } = parseAllowNets(options.allowNets);
  if (errors.length > 0) throw new HookyardError('bad_input', errors.join('; '), { details: errors });
  const resolve =
    options.lookup ??
    ((host: string) => new Promise<LookupAddress[]>((ok, fail) => dnsLookup(host, { all: true }, (err, addrs) => (err ? fail(err) : ok(addrs)))));

  const explicitlyAllowed = (address: string): boolean => {
    const a = normalize(address);
    return nets.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits));
  };
  const refusal = (address: string): string | undefined => {
    let a: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      a = normalize(address);
    } catch {
      return `${address} is not an IP address`;
    }
    const range = a.range();
    if (range === 'unicast') return undefined;
    if (explicitlyAllowed(address)) return undefined;
    return `${a.toString()} is a ${range} address (allow a range with HOOKS_OUTBOUND_ALLOW_NETS)`;
  };

  const netsOnly = (address: string): string | undefined =>
    explicitlyAllowed(address)
      ? undefined
      : `${normalize(address).toString()} is not in HOOKS_OUTBOUND_ALLOW_NETS (and the host is not in HOOKS_WEBHOOK_ALLOW_HOSTS)`;

  const agentFor = (refuse: (address: string) => string | undefined) =>
    new (undici().Agent)({
      connect: {
        // net.connect calls this for a name (never for an IP literal, which fetch checks itself).
        lookup(hostname, opts, callback) {
          resolve(hostname).then(
            (addrs) => {
              const bad = addrs.map((x) => refuse(x.address)).find((r) => r !== undefined);
              if (addrs.length === 0) return callback(Object.assign(new Error(`${hostname} resolved to no address`), { code: 'ENOTFOUND' }), '', 4);
              // Every address must pass: a name with one public and one internal address is refused.
              if (bad) return callback(Object.assign(new Error(`${hostname} resolves to ${bad}`), { code: REFUSED }), '', 4);
              // With autoSelectFamily (node's default) net asks for every address at once.
              if ((opts as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addrs);
              const first = addrs[0]!;
              callback(null, first.address, first.family);
            },
            (err: unknown) => callback(err as NodeJS.ErrnoException, '', 4),
          );
        },
      },
    });

  const fetchThrough = (agent: () => Agent, refuse: (address: string) => string | undefined) =>
    (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) {
        const why = refuse(host);
        if (why) throw new HookyardError('forbidden', `outbound call to ${url.origin} refused: ${why}`, { notSent: true });
      }
      try {
        return await undici().fetch(url, { ...(init as object), redirect: 'manual', dispatcher: agent() });
      } catch (err) {
        const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
        if (cause?.code === REFUSED)
          throw new HookyardError('forbidden', `outbound call to ${url.origin} refused: ${String(cause.message)}`, { cause: err, notSent: true });
        throw err;
      }
    }) as FetchFn;

  const checkedAddress = async (host: string): Promise<LookupAddress> => {
    const bare = host.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    let addrs: LookupAddress[];
    if (family) addrs = [{ address: bare, family }];
    else {
      try {
        addrs = await resolve(bare);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        throw new HookyardError('unavailable', `${bare} could not be resolved: ${String(code ?? err)}`, { cause: err, notSent: true });
      }
    }
    if (addrs.length === 0) throw new HookyardError('unavailable', `${bare} resolved to no address`, { notSent: true });
    // Every address must pass, as for HTTP: a name with one public and one internal address is refused.
    const bad = addrs.map((x) => refusal(x.address)).find((r) => r !== undefined);
    if (bad)
      throw new HookyardError(
        'forbidden',
        family ? `outbound call to ${bare} refused: ${bad}` : `outbound call to ${bare} refused: ${bare} resolves to ${bad}`,
        { notSent: true },
      );
    return addrs[0]!;
  };

  // Each agent is made on its first call.
  let open: Agent | undefined;
  let narrow: Agent | undefined;
  return {
    fetch: fetchThrough(() => (open ??= agentFor(refusal)), refusal),
    fetchAllowedNetsOnly: fetchThrough(() => (narrow ??= agentFor(netsOnly)), netsOnly),
    checkedAddress,
    refusal,
    explicitlyAllowed,
    close: async () => {
      await Promise.all([open?.close(), narrow?.close()]);
    },
  };
}

/**
 * A guard that lets nothing out, for a process that must never reach a
 * registered service (the ingress): every fetch and every address check is
 * `forbidden` (notSent) with `reason`.
 */
export function createRefusingGuard(reason: string): OutboundGuard {
  const refuse = (what: string) => new HookyardError('forbidden', `outbound call to ${what} refused: ${reason}`, { notSent: true });
  const fetchNone = (async (input: string | URL | Request) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    throw refuse(url.origin);
  }) as FetchFn;
  return {
    fetch: fetchNone,
    fetchAllowedNetsOnly: fetchNone,
    checkedAddress: async (host) => {
      throw refuse(host);
    },
    refusal: () => reason,
    explicitlyAllowed: () => false,
    close: async () => undefined,
  };
}
