-- schedule_retry: ends the live attempt in retry_wait, due (and dispatched) at due_at.
-- Idempotent for the same token: a re-send that finds the attempt already ended
-- by schedule_retry with this error and due time answers the run as stored.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 error (JSON), 5 due_at ms, 6 now ms, 7 history detail
-- Returns {0, run head fields (run_head: no payload, input, result, history)}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token, or
-- the attempt ended otherwise.
--!include transitions
local c = script_ctx()
local state, refused = ending_guard(c, ARGV[3], 'schedule_retry')
if refused then return refused end
if state == 'ended' then
  local f = redis.call('HMGET', c.run, 'status', 'error', 'due')
  if f[1] ~= 'retry_wait' or f[2] ~= ARGV[4] or tonumber(f[3]) ~= tonumber(ARGV[5]) then return stale_reply(c) end
  return { 0, run_head(c) }
end
local now = tonumber(ARGV[6])
end_attempt(c, 'schedule_retry')
redis.call('HSET', c.run, 'error', ARGV[4])
make_due(c, 'retry_wait', tonumber(ARGV[5]), now)
append_history(c.run, now, redis.call('HGET', c.run, 'attempts'), 'retry_scheduled', ARGV[7])
return { 0, run_head(c) }
