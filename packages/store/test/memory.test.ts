import { createMemoryStores } from '../src';
import { MemoryBucketStore } from '../src/memory/memory-buckets';
import { MemoryToolStore } from '../src/memory/memory-hooks';
import {
  describeAuditConformance,
  describeBucketConformance,
  describeDeclarationConformance,
  describeHookStoreConformance,
  describeInteractionConformance,
  describeRunListConformance,
  describeRunStoreConformance,
  describeStateConformance,
} from './conformance';

const factory = async () => createMemoryStores();

describeRunStoreConformance('memory', factory);
describeBucketConformance('memory', factory);
describeAuditConformance('memory', factory);
describeRunListConformance('memory', factory);
describeHookStoreConformance('memory', factory);
describeDeclarationConformance('memory', factory);
describeInteractionConformance('memory', factory);
describeStateConformance('memory', async (options) => createMemoryStores(options));

describe('memory buckets', () => {
  it('drops buckets that have refilled, so a flood of one-off clients leaves nothing behind', async () => {
    const buckets = new MemoryBucketStore();
    const limit = { rate: 1, burst: 1 }; // refilled one second after its take
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 2000; i += 1) await buckets.take('door-client', `10.0.${i >> 8}.${i & 255}`, limit, t0);
    expect(buckets.size).toBeGreaterThan(1024); // none refilled yet: nothing to drop
    // Later, one more take crosses the sweep mark: every refilled bucket goes, the live one stays.
    for (let i = 0; i < 60; i += 1) await buckets.take('door-topic', `t${i}`, limit, t0 + 5_000);
    expect(buckets.size).toBe(60);
    expect(await buckets.take('door-topic', 't0', limit, t0 + 5_000)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(await buckets.take('door-client', '10.0.0.0', limit, t0 + 5_000)).toEqual({ ok: true });
  });
});

describe('memory pending registrations', () => {
  it('expire after their ttl: a late take finds nothing', async () => {
    let now = 1000;
    const tools = new MemoryToolStore(() => now);
    const record = { name: 'pets', kind: 'openapi', endpoint: 'https://pets.example' } as Parameters<MemoryToolStore['putTool']>[0];
    const kept = await tools.putPendingTool(record, 500);
    const late = await tools.putPendingTool(record, 500);
    now += 499;
    expect(await tools.takePendingTool(kept)).toEqual(record);
    now += 1;
    expect(await tools.takePendingTool(late)).toBeNull();
  });
});
