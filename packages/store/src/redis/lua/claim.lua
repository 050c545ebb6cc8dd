-- claim: takes the lease of a pending/retry_wait run that is due (compare-and-set).
-- Records the attempt's claim time (`claimed`: its tool duration runs from there)
-- and, on the run's first claim, counts its accept-to-start (stats.lua).
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 owner, 4 lease ms, 5 now ms, 6 history detail
-- Also reads (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the partition's copy of the hook revisions, {prefix:pN}:hook-revs.
-- Returns {0, token, run fields, hook revision or ''} claimed; {1} not
-- claimable; {ERR_NO_RUN} no such run.
--!include claim_steps
local c = script_ctx()
local now = tonumber(ARGV[5])
local f = redis.call('HMGET', c.run, 'status', 'due', 'started', 'hook', 'created')
if not f[1] then return { ERR_NO_RUN } end
if not claimable(f, now) then return { 1 } end
local attempts, token = count_attempt(c, f, now)
take_lease(c, ARGV[3], tonumber(ARGV[4]), now, attempts, ARGV[6])
return { 0, token, redis.call('HGETALL', c.run), hook_revision(c, f[4]) }
