import { createMemoryBus } from '../src';
import { runBusConformance } from './conformance';

runBusConformance('memory', async () => {
  const bus = createMemoryBus();
  return {
    replica: async () => bus,
    dispose: () => bus.close(),
  };
});

describe('memory bus', () => {
  it('says its kind', () => {
    expect(createMemoryBus().kind).toBe('memory');
  });
});
