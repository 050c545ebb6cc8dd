import { POLICY_VERSION_FIELD } from './keys';
import type { KeyLayout } from './keys';
import type { Scripts } from './scripts';

/** Records the approval policy's version in partition `p`'s slot unless a newer one is there (copy_policy_version.lua). */
export function copyPolicyVersion(scripts: Scripts, keys: KeyLayout, p: number, version: number | string): Promise<unknown[]> {
  return scripts.run('copy_policy_version', [keys.hookRevisions(p)], [keys.tag(p), POLICY_VERSION_FIELD, version]);
}
