import type { Logger, Settings } from '@hookyard/core';
import type { UnroutedBounds } from '@hookyard/store';

type UnroutedSettings = Pick<Settings, 'unroutedKeep' | 'unroutedTopics' | 'unroutedRetentionMs' | 'unroutedMaxBytes' | 'unroutedEventMaxBytes'>;

/** At most one WARN a minute about events dropped for space: a flood must not become a log flood. */
const DROP_WARN_EVERY_MS = 60_000;

/**
 * The store's bounds on events kept on topics with no hook, from
 * HOOKS_UNROUTED_*. With a logger, events the store drops to stay within
 * HOOKS_UNROUTED_MAX_BYTES are logged (WARN, summed per minute); the store
 * counts them too (GET /api/unrouted `usage.dropped`).
 */
export function unroutedBounds(settings: UnroutedSettings, logger?: Logger): UnroutedBounds {
  const bounds: UnroutedBounds = {
    keep: settings.unroutedKeep,
    topics: settings.unroutedTopics,
    retentionMs: settings.unroutedRetentionMs,
    maxBytes: settings.unroutedMaxBytes,
    eventMaxBytes: settings.unroutedEventMaxBytes,
  };
  if (!logger) return bounds;
  let unsaid = 0;
  let warnedAt = -Infinity;
  bounds.onDropped = (events, now) => {
    unsaid += events;
    if (now - warnedAt < DROP_WARN_EVERY_MS) return;
    logger.warn(
      { dropped: unsaid, maxBytes: settings.unroutedMaxBytes },
      'unrouted events: the oldest were dropped to stay within HOOKS_UNROUTED_MAX_BYTES (GET /api/unrouted shows the usage)',
    );
    unsaid = 0;
    warnedAt = now;
  };
  return bounds;
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
