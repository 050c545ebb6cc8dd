/**
 * The flood limiter of the public door and the management API.
 *
 * How the door calls it (one limiter per process, made at boot from settings):
 *
 *   const limiter = createDoorLimiter({ buckets: stores.buckets, rate: s.doorRate, burst: s.doorBurst,
 *                                       apiRate: s.apiRate, trustedProxies: s.trustedProxies, logger });
 *   const ip = limiter.clientAddress(req.socket.remoteAddress ?? '', req.get('x-forwarded-for'));
 *   const v = await limiter.checkDoor(ip, topic);      // before reading the body
 *   if (!v.ok) -> res.set('Retry-After', String(v.retryAfterSeconds)).status(429) with door/too-many.ts's body
 *   // management routes: limiter.checkApi(ip), same answer
 *   await limiter.close() on shutdown.
 *
 * Leave express's own `trust proxy` off: the address comes from here. The
 * buckets are the store's (`Stores.buckets`: in Redis when the stores are, on
 * their one connection, so replicas share them); without `buckets` they live
 * in this process. Concurrent checks of one bucket and key within one
 * event-loop turn share one take (buckets.ts: coalesced, deciding exactly as
 * one take each, in arrival order). With the store
 * out of reach the checks fail open to per-process buckets and say so once in
 * the log.
 */
import { badInput } from '@hookyard/core';
import type { Clock, Logger } from '@hookyard/core';
import type { BucketStore } from '@hookyard/store';
import { clientAddressFrom, parseTrustedProxies } from './address';
import { createBucketSet } from './buckets';
import type { Verdict } from './buckets';

export { normalizeIp } from './address';
export type { BucketName } from './token-bucket';
export type { Verdict } from './buckets';

export interface DoorLimiterOptions {
  /** Buckets shared across replicas (the stores' `buckets`); absent = per-process buckets. */
  buckets?: BucketStore;
  /** The time of each check (default: the system clock). */
  clock?: Clock;
  /** Door requests per second, per client and per topic (HOOKS_DOOR_RATE; 0 = unlimited). */
  rate: number;
  /** Door burst, per client and per topic (HOOKS_DOOR_BURST). */
  burst: number;
  /** Management requests per second per client (HOOKS_API_RATE; 0 = unlimited). */
  apiRate: number;
  /** Management burst per client (HOOKS_API_BURST); one second's worth of apiRate when absent. */
  apiBurst?: number;
  /** Agent door (/mcp) requests per second per agent (HOOKS_AGENT_RATE; 0 or absent = unlimited). */
  agentRate?: number;
  /** Agent door burst per agent (HOOKS_AGENT_BURST); one second's worth of agentRate when absent. */
  agentBurst?: number;
  /** Addresses and CIDR ranges whose X-Forwarded-For is believed (HOOKS_TRUSTED_PROXIES). */
  trustedProxies: string[];
  logger?: Logger;
}

export interface DoorLimiter {
  /** Both the client's bucket and the topic's bucket must have a token. */
  checkDoor(clientIp: string, topic: string): Promise<Verdict>;
  checkApi(clientIp: string): Promise<Verdict>;
  /** The agent's bucket (per agent name, shared by all its sessions). */
  checkAgent(agent: string): Promise<Verdict>;
  clientAddress(remoteAddress: string, xForwardedFor: string | undefined): string;
  /** New rates and bursts from the next request on (a live reload); refused whole, naming the setting, like at boot. */
  setRates(rates: LimiterRates): void;
  close(): Promise<void>;
}

export type LimiterRates = Pick<DoorLimiterOptions, 'rate' | 'burst' | 'apiRate' | 'apiBurst' | 'agentRate' | 'agentBurst'>;

function rateErrors(options: LimiterRates): string[] {
  const errors: string[] = [];
  const rateOk = (v: number) => Number.isFinite(v) && v >= 0;
  if (!rateOk(options.rate)) errors.push(`rate (HOOKS_DOOR_RATE) must be a number >= 0, got ${options.rate}`);
  if (!Number.isInteger(options.burst) || options.burst < 1) errors.push(`burst (HOOKS_DOOR_BURST) must be a whole number >= 1, got ${options.burst}`);
  if (!rateOk(options.apiRate)) errors.push(`apiRate (HOOKS_API_RATE) must be a number >= 0, got ${options.apiRate}`);
  if (options.apiBurst !== undefined && (!Number.isInteger(options.apiBurst) || options.apiBurst < 1)) {
    errors.push(`apiBurst (HOOKS_API_BURST) must be a whole number >= 1, got ${options.apiBurst}`);
  }
  if (options.agentRate !== undefined && !rateOk(options.agentRate))
    errors.push(`agentRate (HOOKS_AGENT_RATE) must be a number >= 0, got ${options.agentRate}`);
  if (options.agentBurst !== undefined && (!Number.isInteger(options.agentBurst) || options.agentBurst < 1)) {
    errors.push(`agentBurst (HOOKS_AGENT_BURST) must be a whole number >= 1, got ${options.agentBurst}`);
  }
  return errors;
}

function warnUnlimited(options: LimiterRates, logger: Logger | undefined): void {
  // 0 is the one value that turns a limiter off: said out loud, never a rounding accident.
  if (options.rate === 0) logger?.warn('flood limiter: the public door is not limited (HOOKS_DOOR_RATE=0)');
  if (options.apiRate === 0) logger?.warn('flood limiter: the management API is not limited (HOOKS_API_RATE=0)');
}

export function createDoorLimiter(options: DoorLimiterOptions): DoorLimiter {
  const errors = rateErrors(options);
  const proxies = parseTrustedProxies(options.trustedProxies);
  errors.push(...proxies.errors);
  if (errors.length > 0) throw badInput(`flood limiter settings refused: ${errors.join('; ')}`, errors);

  const logger = options.logger;
  warnUnlimited(options, logger);
  const buckets = createBucketSet({
    store: options.buckets,
    clock: options.clock,
    rate: options.rate,
    burst: options.burst,
    apiRate: options.apiRate,
    apiBurst: options.apiBurst,
    agentRate: options.agentRate,
    agentBurst: options.agentBurst,
    onStore(event, err) {
      if (event === 'down') {
        logger?.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'flood limiter: Redis unreachable, limiting per process until it answers (failing open)',
        );
      } else {
        logger?.info('flood limiter: Redis answers again, buckets shared across replicas');
      }
    },
  });
  return {
    checkDoor: buckets.checkDoor,
    checkApi: buckets.checkApi,
    checkAgent: buckets.checkAgent,
    clientAddress: (remote, xff) => clientAddressFrom(proxies.table, remote, xff),
    setRates(rates) {
      const bad = rateErrors(rates);
      if (bad.length > 0) throw badInput(`flood limiter settings refused: ${bad.join('; ')}`, bad);
      buckets.setRates(rates);
      warnUnlimited(rates, logger);
    },
    close: buckets.close,
  };
}
