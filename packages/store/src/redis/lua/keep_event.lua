-- keep_event: one pending run per hook registered on the topic, in one step,
-- and, when given, the delivery claim in the same step (keepDelivery): either
-- the claim is taken and the runs are kept, or the claim is held and nothing
-- is written. Runs in the partition's slot: it reads the partition's copy of
-- the topic's hook index (kept in step with {prefix}:topic:<topic> by
-- putHook/removeHook); a claimed delivery's partition is chosen from a hash of
-- topic and delivery id, so its claim key lives in that slot too.
-- KEYS: 1 the partition's copy of the topic's hook index ({prefix:pN}:topic-hooks:<topic>),
--       2 partition due zset, 3 (optional) the delivery claim ({prefix:pN}:delivery:<topic>:<id>)
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) each new run hash {prefix:pN}:run:<id> and its list indexes (index.lua).
-- ARGV: 1 partition hash tag, 2 id base (24 chars: time-sortable id + partition),
--       3 topic, 4 payload (JSON), 5 delivery id ('' for none), 6 now ms,
--       7 next dispatch ms, 8 max hooks per event, 9 history detail,
--       10 traceparent ('' for none), 11 claim ttl ms (with KEYS[3]; else ''),
--       12 door (http, nats, api, platform, ...), 13 verified (1 or 0),
--       14 kept request headers (JSON object, '' for none), kept on every run
-- A claim key names its door (keys.ts): doors never share a claim.
-- The claim's value is "<held until ms> <id base>": it holds while its time is
-- after `now` (the callers' clock, as in the memory store); the key's own PX
-- expiry only cleans up.
-- Idempotent: a re-send of the same call (the client re-sends a script whose
-- answer a dropped connection cut off) finds the runs of its own id base (or
-- its own claim) and answers them, writing nothing; so a re-send never keeps
-- an event twice. (The id base is unique per call: a fresh time-sortable id.)
-- Returns {0, id1, hook1, id2, hook2, ...}; {1, claim value} already claimed by
-- another keep (nothing written); {ERR_TOO_MANY_HOOKS, hook count} too many hooks.
-- Only the fragments it uses: each one's definitions run on every call (the
-- transitions of an existing run are not needed here).
--!include codes
--!include slot
--!include history
--!include new_run
local tag, base, topic, payload, delivery = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
same_slot(tag)
local now, next_dispatch = tonumber(ARGV[6]), tonumber(ARGV[7])
local names = redis.call('ZRANGE', KEYS[1], 0, -1)
if #names > tonumber(ARGV[8]) then return { ERR_TOO_MANY_HOOKS, #names } end
local function run_id(i)
  return run_id_at(base, i)
end
-- The runs this same call kept before (a re-send), as the reply.
local function kept_before()
  local out = { 0 }
  for i = 1, tonumber(ARGV[8]) do
    local id = run_id(i)
    local hook = redis.call('HGET', tag .. ':run:' .. id, 'hook')
    if not hook then break end
    out[#out + 1] = id
    out[#out + 1] = hook
  end
  return out
end
local held = KEYS[3] and redis.call('GET', KEYS[3])
if held then
  if string.sub(held, -#base - 1) == ' ' .. base then return kept_before() end
elseif not KEYS[3] and #names > 0 and redis.call('EXISTS', tag .. ':run:' .. run_id(1)) == 1 then
  return kept_before()
end
if KEYS[3] then
  if held then
    local held_until = tonumber(string.match(held, '^(%d+)'))
    if held_until and held_until > now then return { 1, held } end
  end
  local ttl = tonumber(ARGV[11])
  redis.call('SET', KEYS[3], (now + ttl) .. ' ' .. base, 'PX', ttl)
end
local history = '[' .. history_line(now, 0, 'kept', ARGV[9]) .. ']'
local out = { 0 }
for i, hook in ipairs(names) do
  local id = run_id(i)
  new_run(tag, KEYS[2], id, hook, topic, payload, delivery, now, next_dispatch, history, ARGV[10], ARGV[12], ARGV[13], ARGV[14])
  out[#out + 1] = id
  out[#out + 1] = hook
end
return out
