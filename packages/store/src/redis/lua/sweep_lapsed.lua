-- sweep_lapsed: runs of one partition whose lease lapsed (until < now), oldest
-- first; the attempt counts and the interrupt policy decides each.
-- KEYS: 1 partition due zset, 2 partition lease zset, 3 partition done zset
-- Also touches (undeclared) each lapsed run's hash and list indexes, named from
-- ARGV[1], the hash tag of every declared key: same slot.
-- ARGV: 1 partition hash tag, 2 now ms, 3 limit, 4 max attempts, 5 retry delay ms,
--       6 id base of the partition for hooks_run_failed events (the n-th failure uses nth_base), 7 now as ISO time
-- Returns {0, {id, hook, outcome, kind, message, attempts}...}.
--!include interrupt
local tag, now = ARGV[1], tonumber(ARGV[2])
same_slot(tag)
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = { 0 }
for _, id in ipairs(ids) do
  local c = run_ctx(tag, id, KEYS[1], KEYS[2], KEYS[3])
  local f = redis.call('HMGET', c.run, 'status', 'owner', 'attempts')
  if f[1] == 'running' then
    local reason = 'lease of ' .. f[2] .. ' lapsed during attempt ' .. f[3]
    out[#out + 1] = interrupt(c, now, tonumber(ARGV[4]), tonumber(ARGV[5]), 'lapsed', reason, { base = nth_base(ARGV[6], #out), at = ARGV[7] })
  else
    -- Not a live attempt (cannot happen through the scripts): drop the stray entry.
    redis.call('ZREM', KEYS[2], id)
  end
end
return out
