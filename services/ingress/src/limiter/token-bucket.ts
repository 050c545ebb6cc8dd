/**
 * A token bucket kept in Redis, run by rate-limiter-flexible's RateLimiterRedis
 * through its `customIncrTtlLuaScript` hook, so one check is one EVALSHA. The
 * library's own script counts fixed windows, which lets twice the burst through
 * across a window edge; this one keeps the bucket as a "theoretical arrival
 * time" (GCRA): each request moves it `1/rate` seconds forward, and a request is
 * refused when that would put it more than `burst/rate` seconds ahead of now.
 *
 * KEYS[1]  the bucket key (keyPrefix:client-or-topic)
 * ARGV[1]  requests to take (1)
 * ARGV[2]  whole seconds the library derived from customDuration (unused: the key's TTL is exact)
 * ARGV[3]  burst: the bucket size (the limiter's `points`)
 * ARGV[4]  seconds to refill a whole bucket, burst/rate (the limiter's `duration`, may be fractional)
 * Returns  {consumed, msBeforeNext} as the library reads them: consumed > burst means refused,
 *          and msBeforeNext is then the wait until one request would pass.
 */
export const TOKEN_BUCKET_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst = tonumber(ARGV[3])
local fill = tonumber(ARGV[4]) * 1000
local interval = fill / burst
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local ahead = tat + interval * tonumber(ARGV[1]) - now
if ahead > fill then
  return {burst + 1, math.ceil(ahead - fill)}
end
redis.call('SET', KEYS[1], string.format('%.3f', now + ahead), 'PX', math.max(1, math.ceil(ahead)))
return {math.ceil(ahead / interval - 1e-9), math.ceil(ahead)}
`;

/** Which bucket: per client at the door, per topic at the door, per client on the management API. */
export type BucketName = 'door-client' | 'door-topic' | 'api';

/**
 * The options every process must agree on for one bucket, as plain data (the
 * cross-process test's fixture builds its limiters from exactly this).
 * `customDuration` keeps the library on its Lua path even when a bucket refills
 * in under a second (it falls back to a plain INCR when the duration floors to 0).
 */
export function bucketOptions(name: BucketName, rate: number, burst: number, prefix: string) {
  const fillSeconds = burst / rate;
  return {
    keyPrefix: `${prefix}:limit:${name}`,
    points: burst,
    duration: fillSeconds,
    customDuration: Math.max(1, Math.ceil(fillSeconds)),
    /** The in-process fallback counts fixed windows of about the same size. */
    memoryDuration: Math.max(1, Math.round(fillSeconds)),
  };
}
