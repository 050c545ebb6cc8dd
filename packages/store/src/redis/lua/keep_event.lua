-- keep_event: one pending run per hook registered on the topic, in one step.
-- Runs in the partition's slot: it reads the partition's copy of the topic's
-- hook index (kept in step with {prefix}:topic:<topic> by putHook/removeHook).
-- KEYS: 1 the partition's copy of the topic's hook index ({prefix:pN}:topic-hooks:<topic>),
--       2 partition due zset
-- Also writes (undeclared, named from ARGV[1], the hash tag of both KEYS: same
-- slot) each new run hash {prefix:pN}:run:<id> and its list indexes (index.lua).
-- ARGV: 1 partition hash tag, 2 id base (24 chars: time-sortable id + partition),
--       3 topic, 4 payload (JSON), 5 delivery id ('' for none), 6 now ms,
--       7 next dispatch ms, 8 max hooks per event, 9 history detail
-- Returns {0, id1, hook1, id2, hook2, ...}; {-5, hook count} too many hooks.
--!include transitions
local tag, base, topic, payload, delivery = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
same_slot(tag)
local now, next_dispatch = tonumber(ARGV[6]), tonumber(ARGV[7])
local names = redis.call('ZRANGE', KEYS[1], 0, -1)
if #names > tonumber(ARGV[8]) then return { -5, #names } end
local digits = '0123456789abcdefghijklmnopqrstuvwxyz'
local history = '[' .. history_line(now, 0, 'kept', ARGV[9]) .. ']'
local out = { 0 }
for i, hook in ipairs(names) do
  -- The run's index within the event, 2 base36 chars (runIdAt in run-ids.ts).
  local hi, lo = math.floor((i - 1) / 36), (i - 1) % 36
  local id = base .. digits:sub(hi + 1, hi + 1) .. digits:sub(lo + 1, lo + 1)
  local key = tag .. ':run:' .. id
  -- Only the fields a fresh run needs (run-hash.ts reads an absent field as its
  -- empty value; claim_intent, error, result, input, owner, until, token,
  -- resumable, finished and an empty delivery are written when they get one).
  -- acted, acted_ids and started stay: scripts compare them with their empty value.
  redis.call('HSET', key,
    'id', id, 'hook', hook, 'topic', topic, 'status', 'pending', 'payload', payload, 'attempts', 0,
    'acted', '', 'acted_ids', '[]', 'due', now, 'created', now, 'updated', now, 'started', '', 'history', history)
  if delivery ~= '' then redis.call('HSET', key, 'delivery', delivery) end
  ix_add_run(tag, id, hook, topic, 'pending')
  redis.call('ZADD', KEYS[2], next_dispatch, id)
  out[#out + 1] = id
  out[#out + 1] = hook
end
return out
