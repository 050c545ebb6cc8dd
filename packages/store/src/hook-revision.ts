import { createHash } from 'node:crypto';

/**
 * A hook record's revision: a digest of the JSON the store keeps for it, so two
 * records with the same revision are the same record (no counter to lose or
 * reuse). The claim answers the current revision of its run's hook, which lets
 * an executor reuse the record it read before instead of reading it again.
 */
export function hookRevision(recordJson: string): string {
  return createHash('sha1').update(recordJson).digest('base64url').slice(0, 16);
}
