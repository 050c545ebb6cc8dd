-- remove_state_declaration: removes a declared state unless a hook binds it.
-- KEYS: 1 declarations ({prefix}:state-decls), 2 bindings ({prefix}:state-binds)
-- ARGV: 1 hook key prefix ({prefix}), 2 "scope/kind"
-- Returns {0, removed JSON or ''}; {ERR_STATE_BOUND, bindings JSON} hooks still bind it.
--!include codes
--!include slot
same_slot(ARGV[1])
local held = redis.call('HGET', KEYS[2], ARGV[2])
if held then return { ERR_STATE_BOUND, held } end
local kept = redis.call('HGET', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[2])
return { 0, kept or '' }
