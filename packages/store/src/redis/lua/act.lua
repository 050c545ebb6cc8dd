-- act: records what the hook did (cancel/resume/take/start) and clears the claim intent.
-- Idempotent during the attempt: a re-send (its acted line is already the last
-- history line, with the same time, and the same acted and ids) writes nothing.
-- Once the attempt has ended, its own token is refused like a stale one.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 acted, 5 acted ids (JSON), 6 input (JSON or '' to keep), 7 resumable (0/1), 8 now ms, 9 history detail
-- Returns {0}; {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, token} stale token.
--!include transitions
local c = script_ctx()
local refused = attempt_guard(c, ARGV[3])
if refused then return refused end
local f = redis.call('HMGET', c.run, 'attempts', 'acted', 'acted_ids')
if f[2] == ARGV[4] and f[3] == ARGV[5] and history_ends_with(c.run, ARGV[8], f[1], 'acted', ARGV[9]) then return { 0 } end
redis.call('HSET', c.run, 'acted', ARGV[4], 'acted_ids', ARGV[5], 'resumable', ARGV[7], 'claim_intent', '', 'updated', ARGV[8])
if ARGV[6] ~= '' then redis.call('HSET', c.run, 'input', ARGV[6]) end
append_history(c.run, ARGV[8], f[1], 'acted', ARGV[9])
return { 0 }
