-- discard: an operator drops a run that is not running; it enters retention.
-- A parked run's open interaction is cancelled in the same step.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 now ms, 4 cancel reason (for a parked run's interaction)
-- Returns {0, run fields...}; {ERR_NO_RUN} no such run; {ERR_RUN_STATUS, status} running or already discarded.
--!include interaction
local c = script_ctx()
local now = tonumber(ARGV[3])
local f = redis.call('HMGET', c.run, 'status', 'attempts', 'interaction')
if not f[1] then return { ERR_NO_RUN } end
if f[1] == 'running' or f[1] == 'discarded' then return { ERR_RUN_STATUS, f[1] } end
redis.call('HSET', c.run, 'ended', '')
if f[1] == 'parked' and f[3] and f[3] ~= '' then
  resolve_int(c.tag, f[3], 'cancelled', 'operator', 'api', ARGV[4], 'null', '', now, '', c.due, c.lease, c.done, false)
end
finish(c, 'discarded', now)
append_history(c.run, now, f[2], 'discarded', 'discarded by operator (was ' .. f[1] .. ')')
return { 0, redis.call('HGETALL', c.run) }
