-- note: adds a history line during the live attempt (e.g. the condition's result).
-- Idempotent during the attempt: a re-send (the same line, same time, is already
-- the last one) adds nothing. Once the attempt has ended its own token is refused.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 event, 5 detail, 6 now ms
-- Returns {0}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local attempts = redis.call('HGET', c.run, 'attempts')
if history_ends_with(c.run, ARGV[6], attempts, ARGV[4], ARGV[5]) then return { 0 } end
append_history(c.run, ARGV[6], attempts, ARGV[4], ARGV[5])
return { 0 }
