import { createMetrics, silentLogger } from '@hookyard/core';
import { createPublishBatcher } from '../src/door/publish-batch';
import { recordingBus } from './support/harness';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('door publish batcher', () => {
  it('coalesces the ids of one event-loop turn into one publish', async () => {
    const bus = recordingBus();
    const metrics = createMetrics({ defaultMetrics: false });
    const publish = createPublishBatcher({ bus, metrics, logger: silentLogger() });
    publish(['a']);
    publish(['b', 'c']);
    expect(bus.published).toEqual([]);
    await turn();
    expect(bus.published).toEqual([['a', 'b', 'c']]);
    publish(['d']);
    await turn();
    expect(bus.published).toEqual([['a', 'b', 'c'], ['d']]);
    await turn();
    expect(await metrics.registry.getSingleMetricAsString('tai42_hook_runs_dispatched_total')).toContain('source="door"} 4');
  });

  it('flushes at once when a batch reaches its bound', async () => {
    const bus = recordingBus();
    const publish = createPublishBatcher({ bus, metrics: createMetrics({ defaultMetrics: false }), logger: silentLogger() }, 3);
    publish(['a', 'b']);
    publish(['c', 'd']);
    expect(bus.published).toEqual([['a', 'b', 'c', 'd']]);
    publish(['e']);
    await turn();
    expect(bus.published).toEqual([['a', 'b', 'c', 'd'], ['e']]);
  });

  it('logs a refused publish as a warning and keeps going', async () => {
    const bus = recordingBus();
    const warnings: unknown[] = [];
    const logger = Object.assign(silentLogger(), { warn: (obj: unknown) => warnings.push(obj) });
    const publish = createPublishBatcher({ bus, metrics: createMetrics({ defaultMetrics: false }), logger });
    bus.failNext = true;
    publish(['x']);
    await turn();
    await turn();
    expect(warnings).toEqual([expect.objectContaining({ runs: ['x'] })]);
    publish(['y']);
    await turn();
    expect(bus.published).toEqual([['y']]);
  });

  it('sends publishes without waiting for the ack of the one before, up to its window; then waits for an ack', async () => {
    const sent: string[][] = [];
    const acks: Array<() => void> = [];
    const bus = {
      kind: 'held',
      publish: (ids: readonly string[]) => {
        sent.push([...ids]);
        return new Promise<void>((resolve) => acks.push(resolve));
      },
    } as unknown as Parameters<typeof createPublishBatcher>[0]['bus'];
    const metrics = createMetrics({ defaultMetrics: false });
    const publish = createPublishBatcher({ bus, metrics, logger: silentLogger() }, 50, 3);
    for (const id of ['a', 'b', 'c']) {
      publish([id]);
      await turn();
    }
    // Three publishes out, none acked yet: none waited for another.
    expect(sent).toEqual([['a'], ['b'], ['c']]);
    publish(['d']);
    publish(['e']);
    await turn();
    // The window is full: d and e gather.
    expect(sent).toHaveLength(3);
    acks[0]!();
    await turn();
    expect(sent).toEqual([['a'], ['b'], ['c'], ['d', 'e']]);
    for (const ack of acks.slice(1)) ack();
    await turn();
    expect(await metrics.registry.getSingleMetricAsString('tai42_hook_runs_dispatched_total')).toContain('source="door"} 5');
  });
});
