import type { Logger, ToolStore } from '@hookyard/core';
import { exposedToolCount } from '../provider/provider-repo';
import type { DiscoveryListener } from '../provider/types';

/**
 * A DiscoveryListener that keeps each outcome in the tool store (the API
 * reads it: last success with its tool count, last error with its time).
 * Fire and forget: a store that cannot take the note is logged, never in the
 * way of the discovery itself.
 */
export function discoveryRecorder(toolStore: ToolStore, logger: Logger, now: () => number = Date.now): DiscoveryListener {
  return (record, outcome) => {
    const at = new Date(now()).toISOString();
    const note =
      'error' in outcome ? { at, error: { kind: outcome.error.kind, message: outcome.error.message } } : { at, tools: exposedToolCount(record, outcome.tools) };
    toolStore.noteDiscovery(record.name, note).catch((err: unknown) => logger.warn({ err, tool: record.name }, 'could not keep the discovery status'));
  };
}
