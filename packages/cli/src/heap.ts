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

/**
 * By how much V8 multiplies the young generation when a scavenge finds much of
 * it alive, for `hookyard serve` (V8's own: 2): 1 keeps it at about its
 * starting size (1-2 MiB). Node 24's V8 lets each semi-space grow to 64 MiB
 * (Node 20: 16); a role's start-up, which keeps most of what it allocates, and
 * any burst grow it, and the pages stay: most of Node 24's extra resting and
 * peak RSS (test/bench/ANALYSIS.md, "Issue 36: memory on Node 24").
 */
export const SEMI_SPACE_GROWTH_FACTOR = 1;
// Only where serve could not start node again with MAX_SEMI_SPACE_MIB (no process.execve, or the CLI's
// `hookyard --json serve` form): it costs CPU (more scavenges) that the size does not.

/**
 * The young generation's semi-space size in MiB that `hookyard serve` starts
 * node with (V8's own on Node 24: up to 64). A size is fixed when the heap is
 * made, so bin/hookyard.js starts node again with it (process.execve: the
 * same process, pid and descriptors) unless the operator chose the young
 * generation. Measured on a quiet 2-core machine (test/bench/ANALYSIS.md,
 * "Issue 36: memory on Node 24"), CPU per run of the end-to-end throughput
 * run against BullMQ's: 1.54-1.73x at 8 MiB, 1.50-1.77x at V8's own size,
 * 1.84-1.94x at 4 MiB, 2.07-2.25x with the growth factor of 1 (kept below as
 * the fallback where node cannot start again); peak RSS after a 5,000-event
 * burst 167 / 97 / 152 MiB (ingress / scheduler / executor) at 8, 148 / 88 /
 * 128 at 4, 254 / 102 / 235 at V8's own.
 */
export const MAX_SEMI_SPACE_MIB = 8;

/** The flag bin/hookyard.js starts node again with, first on its command line. */
const SERVE_YOUNG_FLAG = `--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`;

/** V8's own semi-space growth factor, which `hookyard serve` gives back once a role listens (see `holdYoungDuringStart`). */
export const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

let heldForStart: ((flag: string) => void) | null = null;

/**
 * Keeps the young generation at its starting size (1 MiB a semi-space) while
 * `hookyard serve` starts, when serve chose its size (`execArgv` starts with
 * `youngGenerationFlag`'s flag, as bin/hookyard.js starts node again): loading
 * the modules keeps most of what it allocates, so at V8's growth factor each
 * semi-space reached its 8 MiB before the role served anything, and the pages
 * stay (about 15 MiB of an idle role's RSS; test/bench/ANALYSIS.md, "Issue 36:
 * the young generation at rest"). `releaseYoungAfterStart` gives V8 its own
 * factor back once the role listens, so load grows it as before. Returns
 * whether it held it; an operator's own young generation is left alone.
 */
export function holdYoungDuringStart(execArgv: readonly string[] = process.execArgv, set: (flag: string) => void = setFlagsFromString): boolean {
  if (execArgv[0] !== SERVE_YOUNG_FLAG) return false;
  set('--semi-space-growth-factor=1');
  heldForStart = set;
  return true;
}

/** Gives the young generation V8's own growth factor back after `holdYoungDuringStart`; nothing otherwise (or twice). */
export function releaseYoungAfterStart(): boolean {
  const set = heldForStart;
  if (!set) return false;
  heldForStart = null;
  set(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
  return true;
}

/** A semi-space flag or the growth factor, chosen by the operator: the young generation is theirs. */
const YOUNG_CHOSEN = /^--(semi[-_]space[-_]growth[-_]factor|(max|min)[-_]semi[-_]space[-_]size)(=|$)/;

/**
 * The flag node should start `hookyard serve` with, or null when the operator
 * named the young generation on node's command line or in NODE_OPTIONS.
 */
export function youngGenerationFlag(execArgv: readonly string[], nodeOptions = ''): string | null {
  const named = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  return named.some((a) => YOUNG_CHOSEN.test(a)) ? null : SERVE_YOUNG_FLAG;
}

interface HeapDefault {
  flag: string;
  value: number;
  /** The node flags that say the operator chose this themselves (V8 takes dashes or underscores in a name). */
  chosen: RegExp;
}

const DEFAULTS: readonly HeapDefault[] = [
  { flag: '--heap-growing-percent', value: HEAP_GROWING_PERCENT, chosen: /^--heap[-_]growing[-_]percent(=|$)/ },
  // With a semi-space size of the operator's, the young generation grows as V8 grows it, up to that size.
  {
    flag: '--semi-space-growth-factor',
    value: SEMI_SPACE_GROWTH_FACTOR,
    chosen: YOUNG_CHOSEN,
  },
];

/**
 * The V8 flags `hookyard serve` sets at start: each default unless the operator
 * named that flag on node's own command line (`node --semi-space-growth-factor=2
 * bin/hookyard.js serve`), or, for the growth factor, a semi-space size there or
 * in NODE_OPTIONS, which takes no other of these flags
 * (`NODE_OPTIONS=--max-semi-space-size=64` is V8's own young generation on a
 * 64-bit host).
 */
export function heapFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const named = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  return DEFAULTS.filter((d) => !named.some((a) => d.chosen.test(a))).map((d) => `${d.flag}=${d.value}`);
}

/**
 * Sets `heapFlags` in this process. V8 reads both when it would act on them
 * (the growing factor at a full collection, the growth factor at a scavenge),
 * so setting them at start, before the CLI loads (bin/hookyard.js), is as good
 * as the command-line flag; later, the young generation has already grown. A
 * semi-space's maximum size, by contrast, is fixed when the heap is created.
 */
export function applyHeapDefaults(
  execArgv: readonly string[] = process.execArgv,
  set: (flag: string) => void = setFlagsFromString,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): string[] {
  const flags = heapFlags(execArgv, nodeOptions);
  for (const f of flags) set(f);
  return flags;
}
