-- sweep_due: ids of one partition due for dispatch; their next dispatch moves
-- to now + grace in the same step, so concurrent sweeps never hand out a run twice.
-- KEYS: 1 partition due zset
-- ARGV: 1 now ms, 2 limit, 3 grace ms
-- Returns {0, id...}.
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id) end
table.insert(ids, 1, 0)
return ids
