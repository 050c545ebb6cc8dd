-- schedule_retry: ends the live attempt in retry_wait, due (and dispatched) at due_at.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 error (JSON), 5 due_at ms, 6 now ms, 7 history detail
-- Returns {0, run fields...}; {-1} no such run; {-2, status, token} stale token.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local now = tonumber(ARGV[6])
clear_lease(c)
redis.call('HSET', c.run, 'error', ARGV[4])
make_due(c, 'retry_wait', tonumber(ARGV[5]), now)
append_history(c.run, now, redis.call('HGET', c.run, 'attempts'), 'retry_scheduled', ARGV[7])
return { 0, redis.call('HGETALL', c.run) }
