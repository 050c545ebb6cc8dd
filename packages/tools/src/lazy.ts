/**
 * A module loaded on first use instead of when the file that needs it loads:
 * the gRPC, MCP and OpenAPI libraries cost a process megabytes of memory, and
 * a role (or a deployment) that never calls such a provider never loads them.
 */
export function lazy<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}
