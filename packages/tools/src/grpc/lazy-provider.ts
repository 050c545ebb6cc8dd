import { internal, type HookyardError } from '@hookyard/core';
import type { ToolProvider } from '../provider/types';
import type { GrpcProviderOptions } from './provider';

/** What a closed provider answers, loaded or not. */
export function closedError(): HookyardError {
  return internal('gRPC tool provider is closed');
}

/**
 * The gRPC provider, loaded (with @grpc/grpc-js and protobufjs) the first
 * time a gRPC record is discovered or called: ProviderRepo asks a provider
 * only about records of its kind, so with no record of kind `grpc` the
 * libraries are never loaded.
 */
export function createGrpcProvider(options: GrpcProviderOptions): ToolProvider {
  let real: ToolProvider | undefined;
  let closed = false;
  const load = (): ToolProvider => {
    // Closed before it was ever needed: refused as the loaded provider refuses after close().
    if (!real && closed) throw closedError();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (real ??= new (require('./provider') as typeof import('./provider')).GrpcProvider(options));
  };
  return {
    kind: 'grpc',
    async discover(record) {
      return load().discover(record);
    },
    async check(record) {
      const provider = load();
      return provider.check ? provider.check(record) : provider.discover(record);
    },
    async call(record, key, args, ctx) {
      return load().call(record, key, args, ctx);
    },
    release(recordName) {
      real?.release?.(recordName);
    },
    async close() {
      closed = true;
      await real?.close();
    },
  };
}
