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
});
