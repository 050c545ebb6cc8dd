-- put_state: writes a subject's state document (set, or the write of a merge)
-- with its attributed history line, optionally only on an expected version.
-- KEYS: 1 state hash ({P:st:<scope>:<kind>}:doc:<key>: version, document, created_at, updated_at, updated_by, write_id),
--       2 history list ({...}:hist:<key>, JSON lines, oldest first), 3 kind index ({...}:ix, zset score 0 of keys)
-- ARGV: 1 hash tag, 2 subject key, 3 document JSON, 4 expected version or '' (any; 0: no document yet),
--       5 now (ISO), 6 op (set|merge), 7 door (hook|api), 8 actor, 9 hook name or '' (none), 10 history cap,
--       11 write id (random per call: a re-sent command finds its own write and changes nothing)
-- Returns {0, version, created_at, history lines (as kept, after the trim)} on success (also for a re-send of
-- the last write, answered as stored); {ERR_STATE_VERSION, kept version} when the expected version is not the kept one.
--!include slot
--!include codes
same_slot(ARGV[1])
local kept = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if kept > 0 and redis.call('HGET', KEYS[1], 'write_id') == ARGV[11] then
  return { 0, kept, redis.call('HGET', KEYS[1], 'created_at'), redis.call('LRANGE', KEYS[2], 0, -1) }
end
if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= kept then return { ERR_STATE_VERSION, kept } end
local version = kept + 1
local created = redis.call('HGET', KEYS[1], 'created_at') or ARGV[5]
local hook = cjson.null
if ARGV[9] ~= '' then hook = ARGV[9] end
local by = cjson.encode({ door = ARGV[7], actor = ARGV[8], hook = hook })
redis.call('HSET', KEYS[1], 'version', version, 'document', ARGV[3], 'created_at', created, 'updated_at', ARGV[5], 'updated_by', by, 'write_id', ARGV[11])
redis.call('RPUSH', KEYS[2], cjson.encode({ version = version, op = ARGV[6], door = ARGV[7], actor = ARGV[8], hook = hook, at = ARGV[5] }))
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[10]), -1)
redis.call('ZADD', KEYS[3], 0, ARGV[2])
return { 0, version, created, redis.call('LRANGE', KEYS[2], 0, -1) }
