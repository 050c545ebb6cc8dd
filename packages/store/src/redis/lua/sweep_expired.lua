-- sweep_expired: deletes finished runs (succeeded, skipped, denied, cancelled, discarded) of one
-- partition that finished before the cutoff, with all their index entries and
-- their interactions (drop_run_interactions, interaction.lua).
-- Failed runs never enter the done index, and are skipped here if found.
-- KEYS: 1 partition done zset, 2 partition due zset, 3 partition lease zset
-- Also touches (undeclared) each expired run's hash and list indexes, named from
-- ARGV[1], the hash tag of every declared key: same slot.
-- ARGV: 1 partition hash tag, 2 cutoff ms (finished < cutoff), 3 limit
-- Returns {0, deleted count}.
--!include slot
--!include index
--!include interaction
local tag = ARGV[1]
same_slot(tag)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local deleted = 0
for _, id in ipairs(ids) do
  local key = tag .. ':run:' .. id
  local f = redis.call('HMGET', key, 'status', 'hook', 'topic')
  if f[1] == 'succeeded' or f[1] == 'skipped' or f[1] == 'denied' or f[1] == 'cancelled' or f[1] == 'discarded' then
    ix_drop_run(tag, id, f[2], f[3], f[1])
    redis.call('DEL', key)
    drop_run_interactions(tag, id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    deleted = deleted + 1
  end
  redis.call('ZREM', KEYS[1], id)
end
return { 0, deleted }
