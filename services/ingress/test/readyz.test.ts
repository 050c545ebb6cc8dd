import { HookyardError } from '@hookyard/core';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { startHarness } from './support/harness';

/**
 * The ingress /readyz: it gates on what the door needs to keep an event (the
 * store) and answers within its deadline even when the store hangs; a NATS
 * outage alone leaves the door ready (it keeps, the sweep dispatches later).
 */
describe('ingress /readyz', () => {
  it('a store that never answers: 503 within the deadline, naming it', async () => {
    const inner = createMemoryStores();
    const stores: Stores = { ...inner, ping: () => new Promise<void>(() => undefined) };
    const h = await startHarness({ stores });
    try {
      const r = await h.call('/readyz');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'unready', reason: 'store (memory) not ready: no answer within 800 ms' });
    } finally {
      await h.close();
    }
  });

  it('the bus out of reach alone: still ready, and says so; the door keeps', async () => {
    const h = await startHarness();
    h.bus.ping = async () => {
      throw new HookyardError('unavailable', 'NATS connection closed');
    };
    try {
      const r = await h.call('/readyz');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        status: 'ready',
        degraded: 'bus (memory) not ready: NATS connection closed; events are kept, the sweep dispatches them once it is back',
      });
      expect((await h.call('/universal_webhook/t', { method: 'POST', json: {} })).body).toMatchObject({ status: 'accepted', runs: 0 });
    } finally {
      await h.close();
    }
  });

  it('both fine: ready', async () => {
    const h = await startHarness();
    try {
      expect((await h.call('/readyz')).body).toEqual({ status: 'ready' });
    } finally {
      await h.close();
    }
  });
});
