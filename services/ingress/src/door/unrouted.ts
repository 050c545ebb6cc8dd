import type { Settings } from '@hookyard/core';
import type { UnroutedBounds } from '@hookyard/store';

/** The store's bounds on events kept on topics with no hook, from HOOKS_UNROUTED_*. */
export function unroutedBounds(settings: Pick<Settings, 'unroutedKeep' | 'unroutedTopics' | 'unroutedRetentionMs'>): UnroutedBounds {
  return { keep: settings.unroutedKeep, topics: settings.unroutedTopics, retentionMs: settings.unroutedRetentionMs };
}

/**
 * What the door's 200 says about an event on a topic with no hook. Still 200
 * (a sender retrying a typo forever helps nobody); the sentence names the
 * topic and where the event is kept, so a sender's log shows the mistake.
 */
export function unroutedMessage(topic: string, bounds: UnroutedBounds | undefined): string {
  const where = bounds && bounds.keep > 0 ? `the event is kept under GET /api/unrouted/${topic}` : 'the event is not kept (HOOKS_UNROUTED_KEEP is 0)';
  return `no hook is registered on topic '${topic}'; ${where}`;
}
