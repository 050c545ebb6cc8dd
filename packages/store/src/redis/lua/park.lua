-- park: creates an open interaction bound to the run and parks the run, ending
-- its live attempt (no lease, not due, never expired by retention).
-- Idempotent for the same token: a re-send that finds the attempt already ended
-- by park answers the interaction and run as stored (its own new id unused).
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- Also writes (undeclared, named from ARGV[1], the hash tag of every declared
-- key: same slot) the interaction hash and its indexes (interaction.lua).
-- ARGV: 1 partition hash tag, 2 run id, 3 token, 4 interaction id, 5 kind, 6 tool, 7 args hash,
--       8 rule, 9 policy version, 10 subject (JSON or ''), 11 subject text ('' for none),
--       12 on_timeout, 13 expires ms, 14 now ms, 15 history detail, 16 answer hooks (JSON list or ''),
--       17 approver ('caller' or ''), 18 the rule's message ('' for none)
-- Returns {0, interaction fields, run fields}; {ERR_NO_RUN} no such run;
-- {ERR_STALE_TOKEN, status, token} stale token.
--!include interaction
local c = script_ctx()
local state, refused = ending_guard(c, ARGV[3], 'park')
if refused then return refused end
if state == 'ended' then
  local f = redis.call('HMGET', c.run, 'status', 'interaction')
  if f[1] ~= 'parked' then return stale_reply(c) end
  return { 0, redis.call('HGETALL', int_key(c.tag, f[2])), redis.call('HGETALL', c.run) }
end
local tag, id, now = c.tag, ARGV[4], tonumber(ARGV[14])
local f = redis.call('HMGET', c.run, 'hook', 'topic', 'attempts')
local key = int_key(tag, id)
redis.call('HSET', key, 'id', id, 'kind', ARGV[5], 'run', c.id, 'hook', f[1], 'topic', f[2], 'tool', ARGV[6],
  'args_hash', ARGV[7], 'rule', ARGV[8], 'policy_version', ARGV[9], 'subject', ARGV[10], 'subject_text', ARGV[11],
  'on_timeout', ARGV[12], 'created', now, 'expires', ARGV[13], 'status', 'open', 'answer_hooks', ARGV[16],
  'approver', ARGV[17], 'message', ARGV[18])
redis.call('ZADD', tag .. ':int:ix:all', 0, id)
redis.call('ZADD', tag .. ':int:ix:k:' .. ARGV[5], 0, id)
redis.call('ZADD', tag .. ':int:ix:h:' .. f[1], 0, id)
redis.call('ZADD', tag .. ':int:ix:r:' .. c.id, 0, id)
int_move_status(tag, id, nil, 'open')
redis.call('ZADD', tag .. ':int:expiry', tonumber(ARGV[13]), id)
if ARGV[11] ~= '' then redis.call('ZADD', tag .. ':int:open:' .. ARGV[11], 0, id) end
end_attempt(c, 'park')
set_status(c, 'parked', now)
redis.call('HSET', c.run, 'due', '', 'interaction', id)
redis.call('ZREM', c.due, c.id)
append_history(c.run, now, f[3], 'parked', ARGV[15])
-- An approval asked for is counted in its minute (stats.lua: p).
if ARGV[5] == 'approval' then stats_add(tag, now, f[1], 'p') end
return { 0, redis.call('HGETALL', key), redis.call('HGETALL', c.run) }
