-- remove_hook: unregisters a hook and takes it off its topic index (the
-- per-partition copies are cleared by the caller first, see redis-hooks.ts).
-- KEYS: 1 hooks hash ({prefix}:hooks)
-- Also touches (undeclared) {prefix}:topic:<topic>, named from ARGV[1], the hash
-- tag of KEYS[1]: same slot.
-- ARGV: 1 hook key prefix ({prefix}), 2 name
-- Returns {0, 1, previous JSON} removed; {0, 0} there was no such hook.
--!include slot
same_slot(ARGV[1])
local previous = redis.call('HGET', KEYS[1], ARGV[2])
if not previous then return { 0, 0 } end
redis.call('ZREM', ARGV[1] .. ':topic:' .. cjson.decode(previous).topic, ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[2])
return { 0, 1, previous }
