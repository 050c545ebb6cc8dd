-- keep_hook_run: one pending run of one named hook (a trigger link's keep),
-- not of every hook on the topic. Runs in the partition's slot: the hook must
-- be on the partition's copy of the topic's hook index (as keep_event reads
-- it), else nothing is kept (removed or moved since the caller read it).
-- KEYS: 1 the partition's copy of the topic's hook index ({prefix:pN}:topic-hooks:<topic>),
--       2 partition due zset
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the new run hash {prefix:pN}:run:<id> and its list indexes (index.lua).
-- ARGV: 1 partition hash tag, 2 id base, 3 topic, 4 payload (JSON), 5 now ms,
--       6 next dispatch ms, 7 history detail, 8 traceparent ('' for none),
--       9 door, 10 verified (1 or 0), 11 hook, 12 trigger link id ('' for none),
--       13 kept request headers (JSON object, '' for none)
-- Idempotent: a re-send finds the run of its own id base and answers it.
-- Returns {0, id, hook} kept; {0} the hook is not on the topic.
--!include transitions
--!include new_run
local tag, base, topic, hook = ARGV[1], ARGV[2], ARGV[3], ARGV[11]
same_slot(tag)
local id = run_id_at(base, 1)
local key = tag .. ':run:' .. id
if redis.call('EXISTS', key) == 1 then return { 0, id, redis.call('HGET', key, 'hook') } end
if not redis.call('ZSCORE', KEYS[1], hook) then return { 0 } end
local now = tonumber(ARGV[5])
local history = '[' .. history_line(now, 0, 'kept', ARGV[7]) .. ']'
new_run(tag, KEYS[2], id, hook, topic, ARGV[4], '', now, tonumber(ARGV[6]), history, ARGV[8], ARGV[9], ARGV[10], ARGV[13])
if ARGV[12] ~= '' then redis.call('HSET', key, 'trigger_link', ARGV[12]) end
return { 0, id, hook }
