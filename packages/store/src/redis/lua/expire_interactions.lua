-- expire_interactions: resolves the open interactions of one partition whose
-- expiry passed as `expired` (via expiry) and wakes their runs, oldest first.
-- KEYS: 1 partition interaction expiry zset, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- Also touches (undeclared, named from ARGV[1], the hash tag of every declared
-- key: same slot) each interaction, its indexes and its run.
-- ARGV: 1 partition hash tag, 2 now ms, 3 limit, 4 reason
-- Returns {0, interaction fields...}.
--!include interaction
local tag, now = ARGV[1], tonumber(ARGV[2])
same_slot(tag)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = { 0 }
for _, id in ipairs(ids) do
  local detail = 'interaction ' .. id .. ' expired by expiry via expiry'
  local refused = resolve_int(tag, id, 'expired', 'expiry', 'expiry', ARGV[4], 'null', '', now, detail, KEYS[2], KEYS[3], KEYS[4], true)
  if refused then
    redis.call('ZREM', KEYS[1], id)
  else
    out[#out + 1] = redis.call('HGETALL', int_key(tag, id))
  end
end
return out
