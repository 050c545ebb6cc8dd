/**
 * Verifier secrets are references (`env:NAME`, `file:/path`) resolved when a
 * delivery is verified. The resolver is the platform's one implementation in
 * @hookyard/core (tool records use it for their secret references too); a
 * reference that cannot be read throws HookyardError `internal`, so the door
 * answers 500 and keeps nothing.
 */
export { createSecretResolver } from '@hookyard/core';
export type { SecretResolver, SecretResolverOptions } from '@hookyard/core';
