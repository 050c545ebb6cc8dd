import { silentLogger, type RemoteToolRecord } from '@hookyard/core';
import { createGrpcProvider, type GrpcProviderOptions } from '../../src/grpc';
import { createOutboundGuard } from '../../src/outbound';
import { ProviderRepo } from '../../src/provider/provider-repo';

/** A stored record of kind `grpc`; `extra` carries the gRPC-only fields (`proto`, `services`, `metadata`). */
export function grpcRecord(name: string, endpoint: string, extra: Record<string, unknown> = {}, overrides: Partial<RemoteToolRecord> = {}): RemoteToolRecord {
  return {
    name,
    kind: 'grpc',
    endpoint,
    method: 'POST',
    timeout_ms: 5000,
    headers: {},
    body_properties: {},
    protocol: 'openai',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
    ...extra,
  };
}

/** The outbound guard with loopback allowed (HOOKS_OUTBOUND_ALLOW_NETS=127.0.0.0/8,::1): the test servers listen there. */
export const LOOPBACK_GUARD = createOutboundGuard({ allowNets: ['127.0.0.0/8', '::1'] });

/**
 * The repo a deployment serves gRPC records through: ProviderRepo over the
 * gRPC provider (loopback allowed unless `options.guard` says otherwise),
 * reading `records` on every lookup as a tool store does.
 */
export function grpcRepo(records: RemoteToolRecord[], options: Partial<GrpcProviderOptions> = {}): ProviderRepo {
  const logger = options.logger ?? silentLogger();
  return new ProviderRepo({
    toolStore: { listTools: async () => records, getTool: async (name) => records.find((r) => r.name === name) ?? null },
    logger,
    secrets: options.secrets,
    providers: [createGrpcProvider({ guard: LOOPBACK_GUARD, ...options, logger })],
  });
}
