/**
 * The door's flood-limiter answer (429), in the management API's error shape
 * (`{"error": {"kind", "message"}}`) so a client parses one shape for every
 * refusal it can retry: the message says what was limited, for how long, and
 * the settings that set the limit.
 */
export function tooManyBody(what: 'topic' | 'link', retryAfterSeconds: number): string {
  const on = what === 'topic' ? 'from this client or on this topic' : 'from this client or on this trigger link';
  return JSON.stringify({
    error: {
      kind: 'unavailable',
      message:
        `too many requests to the public door ${on}; retry in ${retryAfterSeconds} s (Retry-After). ` +
        `The limit is HOOKS_DOOR_RATE requests a second with a burst of HOOKS_DOOR_BURST, per client and per ${what}: raise them if this traffic is expected`,
    },
  });
}
