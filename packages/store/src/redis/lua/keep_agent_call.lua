-- keep_agent_call: one pending run for an agent's tool call (door `agent`),
-- unless the agent's idempotency key already names a kept run: the check and
-- the keep are one step, so two calls with one key keep one run.
-- KEYS: 1 the key's record ({prefix:pN}:agent-call:<agent id>:<key sha256>: keys belong to the agent's
--       immutable id, so a same-named agent made later never finds them), 2 partition due zset
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the new run hash {prefix:pN}:run:<id> and its list indexes (index.lua).
-- ARGV: 1 partition hash tag, 2 run id, 3 payload (JSON: the call), 4 now ms,
--       5 next dispatch ms, 6 history detail, 7 traceparent ('' for none),
--       8 hook slot (agent:<name>), 9 topic, 10 key TTL ms
-- The record's value is "<answers until ms> <run id>": it answers while its
-- time is after `now` (the callers' clock, as in the memory store and the
-- delivery claims); the key's own PX expiry only cleans up.
-- Idempotent: a re-send of the same call (a dropped connection's answer) finds
-- its own run id in the record and answers it as kept, writing nothing.
-- Returns {0, id, 1} kept; {0, id, 0} the key names run id, still kept (nothing written).
--!include transitions
--!include new_run
local tag, id, now, ttl = ARGV[1], ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[10])
same_slot(tag)
local held = redis.call('GET', KEYS[1])
if held then
  local held_until, held_id = string.match(held, '^(%d+) (.+)$')
  if held_id == id then return { 0, id, 1 } end
  if held_id and tonumber(held_until) > now and redis.call('EXISTS', tag .. ':run:' .. held_id) == 1 then
    return { 0, held_id, 0 }
  end
end
local history = '[' .. history_line(now, 0, 'kept', ARGV[6]) .. ']'
new_run(tag, KEYS[2], id, ARGV[8], ARGV[9], ARGV[3], '', now, tonumber(ARGV[5]), history, ARGV[7], 'agent', '0')
redis.call('SET', KEYS[1], (now + ttl) .. ' ' .. id, 'PX', ttl)
return { 0, id, 1 }
