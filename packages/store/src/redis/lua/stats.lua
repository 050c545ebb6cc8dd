-- Fragment: stats_add(tag, now, hook, m1, m2, ...) and stats_bucket(ms): the
-- per-minute counters the run transitions keep in the step they already run
-- (stats-rules.ts reads them; the memory store keeps the same fields).
-- Key {prefix:pN}:stats:<minute> (minute = floor(now / 60000), the caller's
-- clock), a hash in the partition's slot (named from the tag: same slot), that
-- expires STATS_TTL_S after it was made (its minute's first count). Fields:
-- <m>|<hook> for the first STATS_MAX_HOOKS hooks of the minute (h|<hook> admits
-- one, n counts them), <m>|* for the later ones together (the totals are the sum
-- of all); m is a accepted, s succeeded, f failed, k skipped, d denied, p approvals asked (park), q<i>
-- accept-to-start and t<i> tool duration in histogram bucket i (at most 2^i ms;
-- the last one, STATS_BUCKETS - 1, is everything longer).
local STATS_TTL_S, STATS_MAX_HOOKS, STATS_BUCKETS = 90000, 100, 26

local function stats_bucket(ms)
  local i, bound = 0, 1
  while bound < ms and i < STATS_BUCKETS - 1 do
    bound, i = bound * 2, i + 1
  end
  return i
end

local function stats_add(tag, now, hook, ...)
  local key = tag .. ':stats:' .. math.floor(now / 60000)
  if redis.call('HEXISTS', key, 'h|' .. hook) == 0 then
    if tonumber(redis.call('HGET', key, 'n') or '0') < STATS_MAX_HOOKS then
      redis.call('HSET', key, 'h|' .. hook, 1)
      -- The minute's first hook makes the key: its TTL is set then, once.
      if redis.call('HINCRBY', key, 'n', 1) == 1 then redis.call('EXPIRE', key, STATS_TTL_S) end
    else
      hook = '*'
    end
  end
  for _, m in ipairs({ ... }) do
    redis.call('HINCRBY', key, m .. '|' .. hook, 1)
  end
end
