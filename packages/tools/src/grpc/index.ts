/**
 * gRPC tools: records of kind `grpc` whose unary methods become tools,
 * discovered through server reflection or a registered `.proto` text, served
 * by ProviderRepo like OpenAPI and MCP (naming, `operations`, `injected`).
 * Record fields read here: `endpoint` (`grpc://host:port` or
 * `grpcs://host:port`), `timeout_ms`, and the gRPC-only `proto`, `services`,
 * `metadata` (see src/grpc/README.md, "gRPC tools").
 */
export { validateGrpcFields } from './fields';
export { createGrpcProvider } from './lazy-provider';
export type { GrpcProviderOptions } from './provider';
