-- claim: takes the lease of a pending/retry_wait run that is due (compare-and-set).
-- Records the attempt's claim time (`claimed`: its tool duration runs from there)
-- and, on the run's first claim, counts its accept-to-start (stats.lua).
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 owner, 4 lease ms, 5 now ms, 6 history detail
-- Also reads (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the partition's copy of the hook revisions, {prefix:pN}:hook-revs.
-- Returns {0, token, run fields, hook revision or ''} claimed; {1} not
-- claimable; {-1} no such run.
--!include transitions
local c = script_ctx()
local owner, lease_ms, now = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local f = redis.call('HMGET', c.run, 'status', 'due', 'started', 'hook', 'created')
if not f[1] then return { -1 } end
if (f[1] ~= 'pending' and f[1] ~= 'retry_wait') or f[2] == '' or tonumber(f[2]) > now then return { 1 } end
local attempts = redis.call('HINCRBY', c.run, 'attempts', 1)
local token = redis.call('HINCRBY', c.run, 'token', 1)
redis.call('HSET', c.run, 'owner', owner, 'until', now + lease_ms, 'ended', '', 'claimed', now)
if f[3] == '' then
  redis.call('HSET', c.run, 'started', now)
  stats_add(c.tag, now, f[4], 'q' .. stats_bucket(now - tonumber(f[5])))
end
set_status(c, 'running', now)
redis.call('ZREM', c.due, c.id)
redis.call('ZADD', c.lease, now + lease_ms, c.id)
append_history(c.run, now, attempts, 'claimed', ARGV[6])
local revision = redis.call('HGET', c.tag .. ':hook-revs', f[4]) or ''
return { 0, token, redis.call('HGETALL', c.run), revision }
