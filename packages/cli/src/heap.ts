import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection
 * kept before it collects again, in percent, for `hookyard serve` (V8 picks up
 * to 300 % on a heap this small). A role keeps about 20 MiB live but promotes
 * the runs in flight, which die soon after: at V8's own factor the executor's
 * heap reached 4x its live size under the bench's 50-connection burst (peak RSS
 * about 185 MiB), at 50 % about 1.5x (about 136-140 MiB). The price is more
 * full collections: about 0.1 ms more executor CPU per run on a busy 2-core
 * machine, none an A/B on a quiet one could tell from its noise
 * (test/bench/ANALYSIS.md); the ingress and scheduler showed none.
 */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = '--heap-growing-percent';
/** V8 takes dashes or underscores in a flag's name. */
const CHOSEN = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flags `hookyard serve` sets at start: none that the operator chose on
 * node's own command line (`node --heap-growing-percent=100 bin/hookyard.js serve`).
 */
export function heapFlags(execArgv: readonly string[]): string[] {
  return execArgv.some((a) => CHOSEN.test(a)) ? [] : [`${FLAG}=${HEAP_GROWING_PERCENT}`];
}

/**
 * Sets `heapFlags` in this process. V8 reads the growing factor at every full
 * collection, so setting it at start (before the runtime loads) is as good as
 * the command-line flag; the young generation's size, by contrast, is fixed
 * when the heap is created (deploy/ passes --max-semi-space-size for that).
 */
export function applyHeapDefaults(execArgv: readonly string[] = process.execArgv, set: (flag: string) => void = setFlagsFromString): string[] {
  const flags = heapFlags(execArgv);
  for (const f of flags) set(f);
  return flags;
}
