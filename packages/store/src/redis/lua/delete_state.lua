-- delete_state: removes a subject's state document, its history and its
-- place in the kind index, optionally only on an expected version.
-- KEYS: 1 state hash, 2 history list, 3 kind index (as put_state)
-- ARGV: 1 hash tag, 2 subject key, 3 expected version or '' (any; 0: no document)
-- Returns {0, removed version}; {1, 0} when there was no document (and none was expected otherwise);
-- {ERR_STATE_VERSION, kept version} when the expected version is not the kept one.
--!include slot
--!include codes
same_slot(ARGV[1])
local kept = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= kept then return { ERR_STATE_VERSION, kept } end
if kept == 0 then return { 1, 0 } end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return { 0, kept }
