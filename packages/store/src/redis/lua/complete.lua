-- complete: ends the live attempt succeeded, skipped, denied or cancelled; the run enters
-- retention. A run re-dispatched by a resume or approval keeps this outcome on
-- that interaction in the same step (keep_outcome, interaction.lua), for a take.
-- Idempotent for the same token: a re-send (e.g. by the client after a dropped
-- connection) that finds the attempt already ended by complete with this status
-- and result answers the run as stored, writing nothing.
-- The error of an earlier attempt (e.g. the lapsed lease of a run taken over)
-- is cleared: the run ended well; its history keeps what happened before.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 status (succeeded|skipped|denied|cancelled), 5 result (JSON, bounded), 6 now ms, 7 history detail
-- Returns {0, run head fields (run_head: no payload, input, result, history)}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token, or
-- the attempt ended otherwise.
--!include interaction
local c = script_ctx()
local state, refused = ending_guard(c, ARGV[3], 'complete')
if refused then return refused end
if state == 'ended' then
  local f = redis.call('HMGET', c.run, 'status', 'result')
  if f[1] ~= ARGV[4] or f[2] ~= ARGV[5] then return stale_reply(c) end
  return { 0, run_head(c) }
end
local now = tonumber(ARGV[6])
end_attempt(c, 'complete')
redis.call('HSET', c.run, 'result', ARGV[5], 'error', '')
finish(c, ARGV[4], now)
append_history(c.run, now, redis.call('HGET', c.run, 'attempts'), ARGV[4], ARGV[7])
keep_outcome(c, ARGV[4], ARGV[5], now)
return { 0, run_head(c) }
