import { UNROUTED_LABEL_MAX, countUnrouted, createMetrics } from './metrics';

describe('unrouted_total labels', () => {
  it('the first UNROUTED_LABEL_MAX topics get their own label; later ones count under _other, earlier ones keep theirs', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    for (let i = 0; i < UNROUTED_LABEL_MAX + 5; i += 1) countUnrouted(metrics, `t${i}`);
    countUnrouted(metrics, 't0');
    countUnrouted(metrics, 'late');
    const values = (await metrics.unrouted.get()).values;
    expect(values).toHaveLength(UNROUTED_LABEL_MAX + 1);
    expect(values.find((v) => v.labels.topic === 't0')?.value).toBe(2);
    expect(values.find((v) => v.labels.topic === '_other')?.value).toBe(6);
  });
});
