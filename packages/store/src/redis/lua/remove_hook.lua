-- remove_hook: unregisters a hook and takes it off its topic index (the
-- per-partition copies are cleared by the caller first, see redis-hooks.ts),
-- and removes its trigger links (a hook registered again starts with none).
-- Its binding of a declared state goes in the same step.
-- KEYS: 1 hooks hash ({prefix}:hooks), 2 bindings ({prefix}:state-binds)
-- Also touches (undeclared) {prefix}:topic:<topic>, the hook's trigger links
-- ({prefix}:hook-trigger-links:<name>, {prefix}:trigger-link:<id>,
-- {prefix}:trigger-tokens), named from ARGV[1], the hash tag of KEYS[1]: same slot.
-- ARGV: 1 hook key prefix ({prefix}), 2 name
-- Returns {0, 1, previous JSON} removed; {0, 0} there was no such hook.
--!include slot
--!include bind_rules
same_slot(ARGV[1])
local previous = redis.call('HGET', KEYS[1], ARGV[2])
if not previous then return { 0, 0 } end
redis.call('ZREM', ARGV[1] .. ':topic:' .. cjson.decode(previous).topic, ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[2])
unbind(KEYS[2], previous, ARGV[2])
local links = ARGV[1] .. ':hook-trigger-links:' .. ARGV[2]
for _, id in ipairs(redis.call('SMEMBERS', links)) do
  local link = ARGV[1] .. ':trigger-link:' .. id
  local token = redis.call('HGET', link, 'token')
  if token then redis.call('HDEL', ARGV[1] .. ':trigger-tokens', token) end
  redis.call('DEL', link)
end
redis.call('DEL', links)
return { 0, 1, previous }
