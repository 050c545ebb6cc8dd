-- take_token: takes one request's token from a flood limiter's token bucket. The
-- bucket is kept as a "theoretical arrival time" (GCRA): each request moves it one
-- interval (1/rate) on, and a request is refused when that would put it more than
-- burst intervals ahead of now. It refills continuously: no fixed-window edge that
-- lets twice the burst through. Arithmetic as in bucket-rules.ts (the memory twin).
-- KEYS: 1 the bucket ({P:lim:<bucket>:<key>}:tat, string: the arrival time in ms, expiring when it is past)
-- ARGV: 1 hash tag, 2 now (epoch ms), 3 interval (ms per token, 1000 / rate), 4 burst (whole number >= 1)
-- Returns 0 when the token is taken; else the ms until one request would pass (>= 1).
--!include slot
same_slot(ARGV[1])
local now = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local fill = interval * tonumber(ARGV[4])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local ahead = tat + interval - now
if ahead > fill then return math.max(1, math.ceil(ahead - fill)) end
redis.call('SET', KEYS[1], string.format('%.3f', now + ahead), 'PX', math.max(1, math.ceil(ahead)))
return 0
