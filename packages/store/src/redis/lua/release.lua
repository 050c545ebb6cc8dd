-- release: shutdown hand-back of the live attempt; the interrupt policy decides.
-- Idempotent for the same token: a re-send that finds the attempt already ended
-- by a release for this reason answers the outcome it recorded (from the run's
-- status and error), writing nothing.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 reason, 5 now ms, 6 max attempts, 7 retry delay ms,
--       8 id base of a hooks_run_failed event, 9 now as ISO time
-- Returns {0, {id, hook, outcome, kind, message, attempts}}; {ERR_NO_RUN} no such run;
-- {ERR_STALE_TOKEN, status, token} stale token, or the attempt ended otherwise.
--!include interrupt
local c = script_ctx()
local state, refused = ending_guard(c, ARGV[3], 'released')
if refused then return refused end
if state == 'ended' then
  local f = redis.call('HMGET', c.run, 'status', 'error', 'hook', 'attempts')
  local outcomes = { failed = 'failed', retry_wait = 'retry', pending = 'replay' }
  local outcome = outcomes[f[1]]
  local e = (f[2] and f[2] ~= '') and cjson.decode(f[2]) or nil
  if not outcome or not e or not string.find(e.message, ': ' .. ARGV[4], 1, true) then return stale_reply(c) end
  return { 0, { c.id, f[3], outcome, e.kind, e.message, tonumber(f[4]) } }
end
local f = redis.call('HMGET', c.run, 'owner', 'attempts')
local reason = 'attempt ' .. f[2] .. ' was interrupted on ' .. f[1] .. ': ' .. ARGV[4]
return { 0, interrupt(c, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), 'released', reason, { base = ARGV[8], at = ARGV[9] }) }
