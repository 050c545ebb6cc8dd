-- withdraw_start: the live attempt's tool start never left (the call failed
-- before any byte of it was sent): the run is not acted after all, so the
-- platform's backoff applies. Clears acted, the kept input and resumable; a
-- committed cancel/resume/take is never withdrawn.
-- Idempotent during the attempt: a re-send (not acted, its line already last) writes nothing.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 history detail, 5 now ms
-- Returns {0}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token; {ERR_NOT_WITHDRAWABLE, acted} a committed claim.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local f = redis.call('HMGET', c.run, 'attempts', 'acted')
if f[2] == '' then return { 0 } end
if f[2] ~= 'start' then return { ERR_NOT_WITHDRAWABLE, f[2] } end
redis.call('HSET', c.run, 'acted', '', 'acted_ids', '[]', 'input', '', 'resumable', '0', 'updated', ARGV[5])
append_history(c.run, ARGV[5], f[1], 'not_sent', ARGV[4])
return { 0 }
