import type { ToolRetryPolicy } from '@hookyard/core';
import type { ToolRepo } from './types';

/** What a tool declares about failures after it started. */
export interface ToolPolicy {
  /** The tool's own retry policy; absent means the platform adds no attempt. */
  retry?: ToolRetryPolicy;
  /** True when a start interrupted by a crash may be replayed with the same idempotency key. */
  crashResumable: boolean;
}

/**
 * The policy the executor applies once a tool has started, read from the
 * tool's ToolInfo. A name the repo does not know declares nothing.
 */
export async function toolPolicy(repo: ToolRepo, name: string): Promise<ToolPolicy> {
  const infos = await repo.tools(name);
  const info = infos.find((t) => t.name === name) ?? infos[0];
  const policy: ToolPolicy = { crashResumable: info?.crashResumable === true };
  if (info?.retry) policy.retry = info.retry;
  return policy;
}
