/**
 * gRPC tools: records of kind `grpc` whose unary methods become tools,
 * discovered through server reflection or a registered `.proto` text.
 * Record fields read here: `endpoint` (`grpc://host:port` or
 * `grpcs://host:port`), `timeout_ms`, and the gRPC-only `proto`, `services`,
 * `metadata` (see README "gRPC tools").
 */
export { validateGrpcFields } from './fields';
export { createGrpcRepo } from './lazy-repo';
export type { GrpcRepo, GrpcRepoOptions } from './repo';
