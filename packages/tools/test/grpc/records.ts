import type { RemoteToolRecord } from '@hookyard/core';
import { createOutboundGuard } from '../../src/outbound';

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
