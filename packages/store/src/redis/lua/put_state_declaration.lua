-- put_state_declaration: declares or replaces a state, only if the kept
-- declaration is still at the version the caller read (it stamped the next one).
-- KEYS: 1 declarations ({prefix}:state-decls)
-- ARGV: 1 hook key prefix ({prefix}), 2 "scope/kind", 3 declaration JSON, 4 version read (0: none)
-- Returns {0, previous JSON or ''}; {ERR_DECLARATION_MOVED, kept version} it changed since the read.
--!include codes
--!include slot
same_slot(ARGV[1])
local kept = redis.call('HGET', KEYS[1], ARGV[2])
local version = 0
if kept then version = tonumber(cjson.decode(kept).version) or 0 end
if version ~= tonumber(ARGV[4]) then return { ERR_DECLARATION_MOVED, version } end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return { 0, kept or '' }
