import { HEAP_GROWING_PERCENT, applyHeapDefaults, heapFlags } from '../src/heap';

describe('heap defaults of hookyard serve', () => {
  it('sets the old generation growing factor when node was started without one', () => {
    const set: string[] = [];
    expect(applyHeapDefaults([], (f) => set.push(f))).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    expect(set).toEqual(['--heap-growing-percent=50']);
    expect(heapFlags(['--max-semi-space-size=4', '--enable-source-maps'])).toEqual(['--heap-growing-percent=50']);
  });

  it.each(['--heap-growing-percent=100', '--heap_growing_percent=20', '--heap-growing-percent'])(
    "leaves a choice made on node's command line alone: %s",
    (flag) => {
      const set: string[] = [];
      expect(applyHeapDefaults(['--max-semi-space-size=4', flag], (f) => set.push(f))).toEqual([]);
      expect(set).toEqual([]);
    },
  );
});
