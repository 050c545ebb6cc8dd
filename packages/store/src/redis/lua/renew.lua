-- renew: extends the live attempt's lease.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 lease ms, 5 now ms
-- Returns {0}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local until_ms = tonumber(ARGV[5]) + tonumber(ARGV[4])
redis.call('HSET', c.run, 'until', until_ms)
redis.call('ZADD', c.lease, until_ms, c.id)
return { 0 }
