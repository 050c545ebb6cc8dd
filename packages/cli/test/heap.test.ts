import { HEAP_GROWING_PERCENT, SEMI_SPACE_GROWTH_FACTOR, applyHeapDefaults, heapFlags } from '../src/heap';

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
});
