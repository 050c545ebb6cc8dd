-- release: shutdown hand-back of the live attempt; the interrupt policy decides.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 reason, 5 now ms, 6 max attempts, 7 retry delay ms
-- Returns {0, {id, hook, outcome, kind, message, attempts}}; {-1} no such run; {-2, status, token} stale token.
--!include interrupt
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local f = redis.call('HMGET', c.run, 'owner', 'attempts')
local reason = 'attempt ' .. f[2] .. ' was interrupted on ' .. f[1] .. ': ' .. ARGV[4]
return { 0, interrupt(c, tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), 'released', reason) }
