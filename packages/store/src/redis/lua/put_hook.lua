-- put_hook: registers or replaces a hook record; a changed topic moves it between
-- the topic indexes of the {prefix} slot. The per-partition copies of the topic
-- indexes (other slots) are updated by the caller, step by step (redis-hooks.ts).
-- A hook with a subject has its binding checked first, in this step: nothing is
-- written unless the state is declared and no other hook's binding overlaps it.
-- KEYS: 1 hooks hash ({prefix}:hooks), 2 declarations ({prefix}:state-decls),
--       3 bindings ({prefix}:state-binds)
-- Also touches (undeclared) {prefix}:topic:<old topic> and {prefix}:topic:<topic>,
-- named from ARGV[1], the hash tag of KEYS[1]: same slot.
-- ARGV: 1 hook key prefix ({prefix}, the hooks' hash tag), 2 name, 3 hook JSON, 4 topic
-- Returns {0, previous JSON or ''}; {ERR_UNDECLARED_STATE, "scope/kind"} the state is not declared;
-- {ERR_ATTACH_HELD, holder hook, its kept attach} another binding overlaps.
--!include codes
--!include slot
--!include bind_rules
same_slot(ARGV[1])
local previous = redis.call('HGET', KEYS[1], ARGV[2])
local field, attach = binding_of(ARGV[3])
if field then
  if redis.call('HEXISTS', KEYS[2], field) == 0 then return { ERR_UNDECLARED_STATE, field } end
  for hook, held in pairs(read_binds(KEYS[3], field)) do
    if hook ~= ARGV[2] and overlaps(attach, held) then return { ERR_ATTACH_HELD, hook, held } end
  end
end
unbind(KEYS[3], previous, ARGV[2])
if field then
  local held = read_binds(KEYS[3], field)
  held[ARGV[2]] = attach
  write_binds(KEYS[3], field, held)
end
if previous then
  local old_topic = cjson.decode(previous).topic
  if old_topic ~= ARGV[4] then redis.call('ZREM', ARGV[1] .. ':topic:' .. old_topic, ARGV[2]) end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', ARGV[1] .. ':topic:' .. ARGV[4], 0, ARGV[2])
return { 0, previous or '' }
