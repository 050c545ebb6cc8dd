-- keep_agent_call: one pending run for an agent's tool call (door `agent`),
-- unless the agent's idempotency key already names a kept run, or the same
-- agent's identical call (same tool, same arguments' hash) is still open: the
-- checks and the keep are one step, so two calls with one key, or two
-- identical calls with any keys, keep one run.
-- KEYS: 1 the key's record ({prefix:pN}:agent-call:<agent id>:<key sha256>: keys belong to the agent's
--       immutable id, so a same-named agent made later never finds them), 2 partition due zset,
--       3 the open-call pointer ({prefix:pN}:agent-open:<agent id>:<call identity sha256>)
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the new run hash {prefix:pN}:run:<id> and its list indexes (index.lua),
-- and reads the hash of the run the pointer names.
-- ARGV: 1 partition hash tag, 2 run id, 3 payload (JSON: the call), 4 now ms,
--       5 next dispatch ms, 6 history detail, 7 traceparent ('' for none),
--       8 hook slot (agent:<name>), 9 topic, 10 key TTL ms,
--       11 the joinable statuses, space-separated (JOINABLE_STATUSES in agent-rules.ts),
--       12 what ended the attempt of a failed run whose outcome is unknown, space-separated (UNKNOWN_OUTCOME_ENDS)
-- The record's value is "<answers until ms> <run id>": it answers while its
-- time is after `now` (the callers' clock, as in the memory store and the
-- delivery claims); the key's own PX expiry only cleans up. The pointer's
-- value is the run id of the latest such call kept; it is checked against the
-- run's state as it is now (isJoinable in agent-rules.ts), so a finished run's
-- pointer needs no cleaning: the next identical call keeps a new run and
-- points it there.
-- Idempotent: a re-send of the same call (a dropped connection's answer) finds
-- its own run id in the record and answers it as kept, writing nothing.
-- Returns {0, id, 1, 0} kept; {0, id, 0, 0} the key names run id, still kept (nothing written);
-- {0, id, 0, 1} joined the open identical call id (the key's record now names it).
--!include transitions
--!include new_run
local tag, id, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[10])
same_slot(tag)
local held = redis.call('GET', KEYS[1])
if held then
  local held_until, held_id = string.match(held, '^(%d+) (.+)$')
  if held_id == id then return { 0, id, 1, 0 } end
  if held_id and tonumber(held_until) > now and redis.call('EXISTS', tag .. ':run:' .. held_id) == 1 then
    return { 0, held_id, 0, 0 }
  end
end

local function listed(list, word)
  for w in string.gmatch(list, '%S+') do
    if w == word then return true end
  end
  return false
end

local open_id = redis.call('GET', KEYS[3])
if open_id then
  local f = redis.call('HMGET', tag .. ':run:' .. open_id, 'status', 'acted', 'ended')
  local status, acted, ended = f[1], f[2] or '', f[3] or ''
  if status and (listed(ARGV[11], status) or (status == 'failed' and acted == 'start' and listed(ARGV[12], ended))) then
    redis.call('SET', KEYS[1], (now + ttl) .. ' ' .. open_id, 'PX', ttl)
    return { 0, open_id, 0, 1 }
  end
end

local history = '[' .. history_line(now, 0, 'kept', ARGV[6]) .. ']'
new_run(tag, KEYS[2], id, ARGV[8], ARGV[9], ARGV[3], '', now, tonumber(ARGV[5]), history, ARGV[7], 'agent', '0')
redis.call('SET', KEYS[1], (now + ttl) .. ' ' .. id, 'PX', ttl)
redis.call('SET', KEYS[3], id, 'PX', ttl)
return { 0, id, 1, 0 }
