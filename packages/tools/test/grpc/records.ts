import type { RemoteToolRecord } from '@hookyard/core';

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
  } as RemoteToolRecord;
}
