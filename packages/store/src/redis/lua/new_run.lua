-- Fragment: new_run(tag, due_key, id, hook, topic, payload, delivery, now, next_dispatch, history, trace, door, verified, headers)
-- and run_id_at(base, i). Writes one fresh pending run (keep_event, and the
-- platform events the fail transitions keep), its list indexes and its next
-- dispatch, counted as accepted (stats.lua). Only the fields a fresh run needs (run-hash.ts reads an absent
-- field as its empty value; claim_intent, error, result, input, owner, until,
-- token, resumable, finished, an empty delivery and an empty trace are written when they get
-- one). acted, acted_ids and started stay: scripts compare them with their empty value.
-- `door` is always written when given (an absent one reads as `http`: a run
-- kept before doors were recorded); `verified` only when it is '1' (absent is false);
-- `headers` (the kept request headers, JSON) only when given and not '' (absent reads null).
--!include index
--!include stats
local ID_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'

-- The id of an event's i-th run (from 1): the index within the event in 2 base36 chars (runIdAt in run-ids.ts).
local function run_id_at(base, i)
  local hi, lo = math.floor((i - 1) / 36), (i - 1) % 36
  return base .. ID_DIGITS:sub(hi + 1, hi + 1) .. ID_DIGITS:sub(lo + 1, lo + 1)
end

local function new_run(tag, due_key, id, hook, topic, payload, delivery, now, next_dispatch, history, trace, door, verified, headers)
  local key = tag .. ':run:' .. id
  redis.call('HSET', key,
    'id', id, 'hook', hook, 'topic', topic, 'status', 'pending', 'payload', payload, 'attempts', 0,
    'acted', '', 'acted_ids', '[]', 'due', now, 'created', now, 'updated', now, 'started', '', 'history', history)
  if delivery ~= '' then redis.call('HSET', key, 'delivery', delivery) end
  if trace and trace ~= '' then redis.call('HSET', key, 'trace', trace) end
  if door and door ~= '' then redis.call('HSET', key, 'door', door) end
  if verified == '1' then redis.call('HSET', key, 'verified', '1') end
  if headers and headers ~= '' then redis.call('HSET', key, 'headers', headers) end
  ix_add_run(tag, id, hook, topic, 'pending')
  redis.call('ZADD', due_key, next_dispatch, id)
  stats_add(tag, now, hook, 'a')
end
