-- fail: holds the run as failed (never expires on its own).
-- Idempotent for the same token: a re-send that finds the attempt already ended
-- by fail with this error answers the run as stored, writing nothing.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 error (JSON {kind, message}), 5 now ms, 6 history detail,
--       7 id base of the hooks_run_failed runs, 8 now as ISO time
-- Keeps the run's hooks_run_failed event in the same step (failed_event.lua).
-- Returns {0, run head fields (run_head: no payload, input, result, history)}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token, or
-- the attempt ended otherwise.
--!include transitions
--!include failed_event
local c = script_ctx()
local state, refused = ending_guard(c, ARGV[3], 'fail')
if refused then return refused end
if state == 'ended' then
  local f = redis.call('HMGET', c.run, 'status', 'error')
  if f[1] ~= 'failed' or f[2] ~= ARGV[4] then return stale_reply(c) end
  return { 0, run_head(c) }
end
local now = tonumber(ARGV[5])
end_attempt(c, 'fail')
redis.call('HSET', c.run, 'error', ARGV[4])
finish(c, 'failed', now)
append_history(c.run, now, redis.call('HGET', c.run, 'attempts'), 'failed', ARGV[6])
keep_failed_event(c, now, ARGV[7], ARGV[8])
return { 0, run_head(c) }
