import type { HookyardError, RemoteToolRecord } from '@hookyard/core';
import type { JsonSchema, ToolCallContext } from '../types';

/** One tool a registered service offers, as its provider discovered it. */
export interface DiscoveredTool {
  /** The service's own name for it (operationId, MCP tool name, gRPC `pkg.Service.Method`): what `call` takes back. */
  key: string;
  /**
   * The tool-name part, when the kind does not name tools by nameSlug(key):
   * gRPC's method in snake case, service-qualified when two services of the
   * record share a method name. The `operations` filter matches it too.
   */
  slug?: string;
  description: string;
  /** The full JSON Schema of its arguments, injected names included. */
  parameters: JsonSchema;
}

/**
 * One kind of discovered service (openapi, mcp, grpc): finds the tools a record
 * offers and calls one. Naming, the `operations` filter and injected
 * parameters are the ProviderRepo's, the same for every kind.
 */
export interface ToolProvider {
  readonly kind: RemoteToolRecord['kind'];
  /** The record's tools, cached by the provider; an `unavailable` error when the service cannot be asked. */
  discover(record: RemoteToolRecord): Promise<DiscoveredTool[]>;
  /** As discover, but never from a cache (which it then fills): what registration asks (default: discover). */
  check?(record: RemoteToolRecord): Promise<DiscoveredTool[]>;
  /** Calls the tool `key` with the final arguments (injected values applied). */
  call(record: RemoteToolRecord, key: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown>;
  /** The record is no longer registered: drop what was kept for it (its connection, its cached discovery). */
  release?(recordName: string): void;
  /** Drops connections and child processes. */
  close(): Promise<void>;
}

/**
 * Told the outcome of every real discovery of a record (a fetch, a listing, a
 * reflection; never a cached answer): what it found, or why it failed.
 */
export type DiscoveryListener = (
  record: RemoteToolRecord,
  outcome: { tools: readonly Pick<DiscoveredTool, 'key' | 'slug'>[] } | { error: HookyardError },
) => void;
