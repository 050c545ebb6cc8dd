import { randomBytes } from 'node:crypto';

let lastMs = 0;
let seq = 0;

/**
 * A run id that sorts by creation time: 10 chars of base36 milliseconds, 4 of a
 * per-millisecond sequence, 8 of randomness. Lexical order is creation order
 * within a process and nearly so across processes.
 */
export function newRunId(now = Date.now()): string {
  if (now === lastMs) seq += 1;
  else {
    lastMs = now;
    seq = 0;
  }
  return (
    now.toString(36).padStart(10, '0') +
    (seq % 36 ** 4).toString(36).padStart(4, '0') +
    randomBytes(5).toString('hex').slice(0, 8)
  );
}

/**
 * Run ids are 22 lowercase base36/hex characters (`newRunId`), optionally followed
 * by 4 more: the store appends the run's partition and its index within the event
 * (2 base36 chars each) so a run's keys derive from its id.
 */
export const RUN_ID_PATTERN = /^[0-9a-z]{22}(?:[0-9a-z]{4})?$/;
