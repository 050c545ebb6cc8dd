import { randomFillSync } from 'node:crypto';

let lastMs = -1;
let lastPrefix = '';
let seq = 0;

/** Random bytes drawn in one call per 4 KiB and handed out 4 at a time (each byte used once). */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolAt = POOL_BYTES;

/** 2n lowercase hex characters from n fresh random bytes (n at most POOL_BYTES). */
function poolHex(n: number): string {
  if (poolAt + n > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const s = pool.toString('hex', poolAt, poolAt + n);
  poolAt += n;
  return s;
}

/** 8 lowercase hex characters from 4 fresh random bytes. */
function randomHex8(): string {
  return poolHex(4);
}

/**
 * 16 lowercase hex characters from 8 fresh random bytes (a nonce), drawn from
 * the same pool as run ids: as random as `randomBytes(8)`, without a call into
 * the random source per nonce.
 */
export function randomHex16(): string {
  return poolHex(8);
}

/**
 * A run id that sorts by creation time: 10 chars of base36 milliseconds, 4 of a
 * per-millisecond sequence, 8 of randomness. Lexical order is creation order
 * within a process and nearly so across processes.
 */
export function newRunId(now = Date.now()): string {
  if (now === lastMs) seq += 1;
  else {
    lastMs = now;
    lastPrefix = now.toString(36).padStart(10, '0');
    seq = 0;
  }
  return lastPrefix + (seq % 36 ** 4).toString(36).padStart(4, '0') + randomHex8();
}

/**
 * Run ids are 22 lowercase base36/hex characters (`newRunId`), optionally followed
 * by 4 more: the store appends the run's partition and its index within the event
 * (2 base36 chars each) so a run's keys derive from its id.
 */
export const RUN_ID_PATTERN = /^[0-9a-z]{22}(?:[0-9a-z]{4})?$/;
