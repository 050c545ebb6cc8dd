-- take_token: takes up to `count` requests' tokens from a flood limiter's token bucket,
-- exactly as `count` takes one after another at the same `now` would (the limiter
-- coalesces the concurrent checks of one bucket and key into one call). The bucket is
-- kept as a "theoretical arrival time" (GCRA): each granted request moves it one
-- interval (1/rate) on, and a request is refused when that would put it more than burst
-- intervals ahead of now; a refusal moves nothing, so every request after the first
-- refused one is refused too, with the same wait. It refills continuously: no
-- fixed-window edge that lets twice the burst through. Arithmetic as in bucket-rules.ts
-- (the memory twin), the arrival time rounded to the microsecond after each grant as a
-- single take keeps it.
-- KEYS: 1 the bucket ({P:lim:<bucket>:<key>}:tat, string: the arrival time in ms, expiring when it is past)
-- ARGV: 1 hash tag, 2 now (epoch ms), 3 interval (ms per token, 1000 / rate), 4 burst (whole number >= 1),
--       5 count (requests to take for, whole number >= 1)
-- Returns {granted, wait}: granted 0..count requests passed (the first ones); wait 0 when all
-- passed, else the ms until one more request would pass (>= 1).
--!include slot
same_slot(ARGV[1])
local now = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local fill = interval * tonumber(ARGV[4])
local count = tonumber(ARGV[5])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local granted = 0
local wait = 0
local kept = nil
local life = 0
while granted < count do
  local ahead = tat + interval - now
  if ahead > fill then
    wait = math.max(1, math.ceil(ahead - fill))
    break
  end
  kept = string.format('%.3f', now + ahead)
  tat = tonumber(kept)
  life = ahead
  granted = granted + 1
end
if kept then redis.call('SET', KEYS[1], kept, 'PX', math.max(1, math.ceil(life))) end
return {granted, wait}
