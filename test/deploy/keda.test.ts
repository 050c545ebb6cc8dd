import { join } from 'node:path';
import { RUN_CONSUMER } from '../../packages/bus/src/jetstream-bus';
import { streamName } from '../../packages/bus/src/nats-setup';
import { DEPLOY, renderKustomization, renderedSettings, type K8sObject } from './support';

/**
 * The KEDA overlay: executors scale on the run stream's backlog (the durable
 * consumer's pending count) instead of CPU, as an alternative to the prod
 * overlay's CPU autoscaler, never beside it on the same Deployment.
 */
describe('kustomize keda', () => {
  let objs: K8sObject[];
  beforeAll(() => {
    objs = renderKustomization(join(DEPLOY, 'k8s', 'overlays', 'keda'));
  });
  const of = (kind: string) => objs.filter((o) => o.kind === kind);

  test('one ScaledObject on the executor Deployment; its CPU HPA is gone, the ingress HPA stays', () => {
    const scaled = of('ScaledObject');
    expect(scaled.map((s) => [s.apiVersion, s.metadata.name, s.metadata.namespace])).toEqual([['keda.sh/v1alpha1', 'hookyard-executor', 'hookyard']]);
    const target = scaled[0]!.spec.scaleTargetRef;
    expect(target.kind ?? 'Deployment').toBe('Deployment');
    expect(of('Deployment').map((d) => d.metadata.name)).toContain(target.name);
    expect(of('HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name)).toEqual(['hookyard-ingress']);
    expect(scaled[0]!.spec.minReplicaCount).toBeLessThanOrEqual(scaled[0]!.spec.maxReplicaCount);
    expect(scaled[0]!.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
  });

  test('the trigger reads the consumer executors pull from, and a replica takes HOOKS_MAX_WORKERS of backlog', () => {
    const [trigger, ...more] = of('ScaledObject')[0]!.spec.triggers;
    expect(more).toEqual([]);
    const settings = renderedSettings(objs);
    const prefix = settings.HOOKS_NATS_PREFIX ?? 'hooks';
    expect(trigger.type).toBe('nats-jetstream');
    expect(trigger.metadata).toMatchObject({ stream: streamName(prefix, 'RUNS'), consumer: RUN_CONSUMER, account: '$G' });
    expect(trigger.metadata.lagThreshold).toBe(settings.HOOKS_MAX_WORKERS);
    expect(trigger.metadata.natsServerMonitoringEndpoint).toMatch(/^[a-z0-9.-]+:8222$/);
  });

  test('everything else is the prod overlay', () => {
    const prod = renderKustomization(join(DEPLOY, 'k8s', 'overlays', 'prod'));
    const names = (list: K8sObject[]) =>
      list
        .filter((o) => o.kind !== 'ScaledObject' && !(o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'hookyard-executor'))
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort();
    expect(names(objs)).toEqual(names(prod));
  });
});
