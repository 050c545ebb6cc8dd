-- outcome_lost: an attempt whose end-of-attempt write could not reach the store
-- before its lease was taken over says so on the run, so the takeover's error
-- names the lost outcome instead of only "lease lapsed". Written only while
-- the run is as the lapse of this very attempt left it (same token, ended by
-- `lapsed`, not claimed again): its error message gets the detail in front and
-- the history a line. Idempotent: a re-send finds its own history line.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 detail, 5 now ms
-- Returns {0, run fields...}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} the run is
-- not the lapse of this attempt (still running, ended otherwise, or claimed again).
--!include transitions
local c = script_ctx()
local f = redis.call('HMGET', c.run, 'status', 'token', 'ended', 'error', 'attempts')
if not f[1] then return { ERR_NO_RUN } end
if f[2] ~= ARGV[3] or f[3] ~= 'lapsed' or f[1] == 'running' then return { ERR_STALE_TOKEN, f[1], f[2] or '0' } end
if history_ends_with(c.run, ARGV[5], f[5], 'outcome_lost', ARGV[4]) then return { 0, redis.call('HGETALL', c.run) } end
local e = (f[4] and f[4] ~= '') and cjson.decode(f[4]) or { kind = 'unavailable', message = '' }
redis.call('HSET', c.run, 'error', cjson.encode({ kind = e.kind, message = ARGV[4] .. '; ' .. e.message }), 'updated', ARGV[5])
append_history(c.run, ARGV[5], f[5], 'outcome_lost', ARGV[4])
return { 0, redis.call('HGETALL', c.run) }
