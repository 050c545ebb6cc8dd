import { failureFingerprint, type Run } from '@hookyard/core';
import type { RunFilter } from './types';

/**
 * The error part of a run filter (kind and fingerprint), checked on the run
 * itself by both stores: no index holds it. A run without an error matches
 * only a filter that asks for neither.
 */
export function errorMatches(run: Pick<Run, 'error'>, filter: RunFilter): boolean {
  if (filter.errorKind === undefined && filter.fingerprint === undefined) return true;
  if (!run.error) return false;
  if (filter.errorKind !== undefined && run.error.kind !== filter.errorKind) return false;
  return filter.fingerprint === undefined || failureFingerprint(run.error.message) === filter.fingerprint;
}
