-- replay: a new pending run of a run's event (its payload, or an operator's
-- edited one) for the hook as it is registered now, recording which run it replays (`replay_of`). Door
-- `api` (an operator's act), never verified: the source's `verified` is not copied. The new run
-- lives in the source's partition, so both share one slot. Counted as accepted (stats.lua).
-- KEYS: 1 source run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the new run hash {prefix:pN}:run:<new id> and its list indexes (index.lua).
-- ARGV: 1 partition hash tag, 2 source run id, 3 new run id, 4 hook, 5 topic,
--       6 now ms, 7 next dispatch ms, 8 history detail, 9 the edited payload's
--       JSON ('': the source's payload)
-- Returns {0, new run fields...}; {ERR_NO_RUN} no such run; {ERR_RUN_STATUS, status} the source
-- still runs on its own (pending, running, retry_wait, parked). A re-send
-- (the new id exists already) answers that run and writes nothing.
--!include transitions
local c = script_ctx()
local new_id, hook, topic = ARGV[3], ARGV[4], ARGV[5]
local now, next_dispatch = tonumber(ARGV[6]), tonumber(ARGV[7])
local key = c.tag .. ':run:' .. new_id
if redis.call('EXISTS', key) == 1 then return { 0, redis.call('HGETALL', key) } end
local f = redis.call('HMGET', c.run, 'status', 'payload')
if not f[1] then return { ERR_NO_RUN } end
if f[1] == 'pending' or f[1] == 'running' or f[1] == 'retry_wait' or f[1] == 'parked' then return { ERR_RUN_STATUS, f[1] } end
local payload = f[2] or 'null'
if ARGV[9] and ARGV[9] ~= '' then payload = ARGV[9] end
local history = '[' .. history_line(now, 0, 'kept', ARGV[8]) .. ']'
redis.call('HSET', key,
  'id', new_id, 'hook', hook, 'topic', topic, 'status', 'pending', 'payload', payload, 'attempts', 0,
  'acted', '', 'acted_ids', '[]', 'due', now, 'created', now, 'updated', now, 'started', '', 'history', history,
  'replay_of', c.id, 'door', 'api')
ix_add_run(c.tag, new_id, hook, topic, 'pending')
redis.call('ZADD', c.due, next_dispatch, new_id)
stats_add(c.tag, now, hook, 'a')
return { 0, redis.call('HGETALL', key) }
