/**
 * gRPC's standard health service (npm grpc-health-check: grpc.health.v1.Health
 * as the gRPC project ships it) on a real grpc-js server with server
 * reflection (@grpc/reflection), discovered as a registered `grpc` tool and
 * called end to end: the unary `Check` and `List` become tools, the streaming
 * `Watch` does not.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HookyardError } from '@hookyard/core';
import { HealthImplementation, protoPath } from 'grpc-health-check';
import type { ProviderRepo } from '../../src/provider/provider-repo';
import { testContext } from '../support/context';
import { grpcRecord, grpcRepo } from './records';

let server: grpc.Server;
let repo: ProviderRepo;
const health = new HealthImplementation({ '': 'SERVING', 'shop.Catalog': 'SERVING' });

beforeAll(async () => {
  server = new grpc.Server();
  health.addToServer(server);
  new ReflectionService(protoLoader.loadSync(protoPath)).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  repo = grpcRepo([grpcRecord('health', `grpc://127.0.0.1:${port}`)]);
});
afterAll(async () => {
  await repo.close();
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
});

describe('grpc.health.v1 through reflection', () => {
  it('Check and List are tools (Watch streams, so it is not), with the request schema of the real proto', async () => {
    expect(await repo.names()).toEqual(['health__check', 'health__list']);
    const [info] = await repo.tools('health__check');
    expect(info).toMatchObject({ name: 'health__check', description: expect.stringContaining('grpc.health.v1.Health.Check'), provider: 'grpc' });
    expect(info!.parameters).toMatchObject({ type: 'object', properties: { service: { type: 'string' } } });
  });

  it('answers SERVING, then NOT_SERVING once the service says so', async () => {
    expect(await repo.exec('health__check', { service: 'shop.Catalog' }, testContext())).toEqual({ status: 'SERVING' });
    health.setStatus('shop.Catalog', 'NOT_SERVING');
    expect(await repo.exec('health__check', { service: 'shop.Catalog' }, testContext())).toEqual({ status: 'NOT_SERVING' });
    expect(await repo.exec('health__check', {}, testContext())).toEqual({ status: 'SERVING' });
  });

  it('List answers every status the service keeps', async () => {
    const out = (await repo.exec('health__list', {}, testContext())) as { statuses: Record<string, { status: string }> };
    expect(out.statuses['']).toEqual({ status: 'SERVING' });
    expect(Object.keys(out.statuses).sort()).toEqual(['', 'shop.Catalog']);
  });

  it('an unknown service is NOT_FOUND, as the health protocol says: a not_found error', async () => {
    const err = await repo.exec('health__check', { service: 'nope.Service' }, testContext()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookyardError);
    expect((err as HookyardError).kind).toBe('not_found');
  });
});
