import { internal, notFound, type RemoteToolRecord } from '@hookyard/core';
import type { GrpcRepo, GrpcRepoOptions } from './repo';

/**
 * The gRPC repo, loaded (with @grpc/grpc-js and protobufjs) the first time a
 * gRPC record is there to serve: until then, with no record of kind `grpc`,
 * it answers "no tools" from the records alone.
 */
export function createGrpcRepo(options: GrpcRepoOptions): GrpcRepo {
  let real: GrpcRepo | undefined;
  let closed = false;
  const load = (): GrpcRepo => {
    // Closed before it was ever needed: refused as the loaded repo refuses after close().
    if (!real && closed) throw internal('gRPC tool repo is closed');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (real ??= (require('./repo') as typeof import('./repo')).createGrpcRepo(options));
  };
  // Loaded already, or worth loading: some record is a gRPC one.
  const wanted = async (): Promise<boolean> => real !== undefined || (await options.records()).some((r: RemoteToolRecord) => r.kind === 'grpc');
  return {
    async exec(name, args, ctx) {
      if (!(await wanted())) throw notFound(`tool '${name}' is not a registered gRPC tool`);
      return load().exec(name, args, ctx);
    },
    async names() {
      return (await wanted()) ? load().names() : [];
    },
    async schema(name) {
      return (await wanted()) ? load().schema(name) : undefined;
    },
    async tools(providerName) {
      return (await wanted()) ? load().tools(providerName) : [];
    },
    async discoverRecord(record) {
      if (record.kind !== 'grpc') return undefined;
      return load().discoverRecord!(record);
    },
    async close() {
      closed = true;
      await real?.close();
    },
  };
}
