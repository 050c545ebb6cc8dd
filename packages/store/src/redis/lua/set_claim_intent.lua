-- set_claim_intent: records the claim the attempt is about to make (before it commits).
-- Idempotent during the attempt: a re-send (same intent, its line already the last,
-- same time) writes nothing.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 intent, 5 now ms
-- Returns {0}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local f = redis.call('HMGET', c.run, 'attempts', 'claim_intent')
if f[2] == ARGV[4] and history_ends_with(c.run, ARGV[5], f[1], 'claim_intent', ARGV[4]) then return { 0 } end
redis.call('HSET', c.run, 'claim_intent', ARGV[4], 'updated', ARGV[5])
append_history(c.run, ARGV[5], f[1], 'claim_intent', ARGV[4])
return { 0 }
