-- put_hook: registers or replaces a hook record; a changed topic moves it between
-- the topic indexes of the {prefix} slot. The per-partition copies of the topic
-- indexes (other slots) are updated by the caller, step by step (redis-hooks.ts).
-- KEYS: 1 hooks hash ({prefix}:hooks)
-- Also touches (undeclared) {prefix}:topic:<old topic> and {prefix}:topic:<topic>,
-- named from ARGV[1], the hash tag of KEYS[1]: same slot.
-- ARGV: 1 hook key prefix ({prefix}, the hooks' hash tag), 2 name, 3 hook JSON, 4 topic
-- Returns {0, previous JSON or ''}.
--!include slot
same_slot(ARGV[1])
local previous = redis.call('HGET', KEYS[1], ARGV[2])
if previous then
  local old_topic = cjson.decode(previous).topic
  if old_topic ~= ARGV[4] then redis.call('ZREM', ARGV[1] .. ':topic:' .. old_topic, ARGV[2]) end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', ARGV[1] .. ':topic:' .. ARGV[4], 0, ARGV[2])
return { 0, previous or '' }
