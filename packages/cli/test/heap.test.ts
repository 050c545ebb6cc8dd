import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  HEAP_GROWING_PERCENT,
  MAX_SEMI_SPACE_MIB,
  SEMI_SPACE_GROWTH_FACTOR,
  V8_SEMI_SPACE_GROWTH_FACTOR,
  applyHeapDefaults,
  heapFlags,
  holdYoungDuringStart,
  releaseYoungAfterStart,
  youngGenerationFlag,
} from '../src/heap';

const BOTH = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, `--semi-space-growth-factor=${SEMI_SPACE_GROWTH_FACTOR}`];

describe('heap defaults of hookyard serve', () => {
  it('sets the old generation growing factor and the young generation growth when node was started without them', () => {
    const set: string[] = [];
    expect(applyHeapDefaults([], (f) => set.push(f), '')).toEqual(BOTH);
    expect(set).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(heapFlags(['--enable-source-maps'], '--max-old-space-size=512')).toEqual(BOTH);
  });

  it.each(['--heap-growing-percent=100', '--heap_growing_percent=20', '--heap-growing-percent'])(
    "leaves a growing factor chosen on node's command line alone: %s",
    (flag) => {
      const set: string[] = [];
      expect(applyHeapDefaults([flag], (f) => set.push(f), '')).toEqual(['--semi-space-growth-factor=1']);
      expect(set).toEqual(['--semi-space-growth-factor=1']);
    },
  );

  it.each(['--semi-space-growth-factor=2', '--semi_space_growth_factor=4', '--max-semi-space-size=4', '--min-semi-space-size=2'])(
    "leaves the young generation to a choice made on node's command line: %s",
    (flag) => {
      expect(heapFlags([flag], '')).toEqual(['--heap-growing-percent=50']);
    },
  );

  it.each(['--max-semi-space-size=64', '--max_semi_space_size=4', '--min-semi-space-size=2'])(
    'leaves the young generation to a semi-space size in NODE_OPTIONS (which takes no growth factor): %s',
    (flag) => {
      expect(heapFlags([], ` --enable-source-maps  ${flag} --trace-warnings`)).toEqual(['--heap-growing-percent=50']);
    },
  );

  it('reads NODE_OPTIONS from the environment by default', () => {
    const before = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--max-semi-space-size=64';
    try {
      const set: string[] = [];
      expect(applyHeapDefaults([], (f) => set.push(f))).toEqual(['--heap-growing-percent=50']);
      expect(set).toEqual(['--heap-growing-percent=50']);
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = before;
    }
  });

  it('starts serve with a semi-space size unless the operator chose the young generation', () => {
    expect(youngGenerationFlag([], '')).toBe(`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`);
    expect(youngGenerationFlag(['--enable-source-maps'], '--max-old-space-size=512')).toBe(`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`);
    for (const flag of ['--max-semi-space-size=64', '--min_semi_space_size=2', '--semi-space-growth-factor=2']) {
      expect(youngGenerationFlag([flag], '')).toBeNull();
      expect(youngGenerationFlag([], `--trace-warnings ${flag}`)).toBeNull();
    }
    // Once started again with the size, nothing more: the growth factor is left alone too.
    expect(youngGenerationFlag([`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`], '')).toBeNull();
    expect(heapFlags([`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`], '')).toEqual(['--heap-growing-percent=50']);
  });

  it('holds the young generation at its starting size until the role listens, when serve chose its size', () => {
    const set: string[] = [];
    expect(releaseYoungAfterStart()).toBe(false);
    expect(holdYoungDuringStart([`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`, '--enable-source-maps'], (f) => set.push(f))).toBe(true);
    expect(set).toEqual(['--semi-space-growth-factor=1']);
    expect(releaseYoungAfterStart()).toBe(true);
    expect(set).toEqual(['--semi-space-growth-factor=1', `--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`]);
    // Once only.
    expect(releaseYoungAfterStart()).toBe(false);
    expect(set).toHaveLength(2);
  });

  it.each([[[]], [['--max-semi-space-size=64']], [['--enable-source-maps', `--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`]]])(
    "leaves the young generation alone when serve did not choose its size (the operator's flags, or no node started again): %j",
    (execArgv) => {
      const set: string[] = [];
      expect(holdYoungDuringStart(execArgv, (f) => set.push(f))).toBe(false);
      expect(releaseYoungAfterStart()).toBe(false);
      expect(set).toEqual([]);
    },
  );

  it('bin/hookyard.js serve runs in a node started with the size, in the same process', () => {
    // `serve --help` goes through the start-up of serve and prints its help; NODE_DEBUG-free probe: the
    // preload prints what the final node was started with (it runs in the node execve made, and in the first).
    const probe = "process.on('exit', () => process.stderr.write('PROBE ' + process.pid + ' ' + JSON.stringify(process.execArgv) + '\\n'))";
    const bin = join(__dirname, '..', 'bin', 'hookyard.js');
    const run = (nodeOptions: string) =>
      spawnSync(process.execPath, ['--import', 'data:text/javascript,' + encodeURIComponent(probe), bin, 'serve', '--help'], {
        env: { ...process.env, NODE_OPTIONS: nodeOptions },
        encoding: 'utf8',
      });
    const mine = run('');
    expect(mine.status).toBe(0);
    const lines = mine.stderr.split('\n').filter((l) => l.startsWith('PROBE '));
    expect(lines).toHaveLength(1);
    const [, pid, argv] = /^PROBE (\d+) (.*)$/.exec(lines[0]!)!;
    expect(Number(pid)).toBe(mine.pid);
    expect(JSON.parse(argv!)).toContain(`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`);
    const theirs = run('--max-semi-space-size=64');
    expect(theirs.status).toBe(0);
    const [line] = theirs.stderr.split('\n').filter((l) => l.startsWith('PROBE '));
    expect(JSON.parse(/^PROBE \d+ (.*)$/.exec(line!)![1]!)).not.toContain(`--max-semi-space-size=${MAX_SEMI_SPACE_MIB}`);
  });
});
