-- Fragment: the list indexes of one partition. Sorted sets with score 0, so
-- members order by id (ids start with their creation time) and a page is one
-- ZREVRANGEBYLEX. Keys are built from the partition's hash tag `tag`, so they
-- live in the run's slot. Per run: all, h:<hook>, t:<topic> and, per status,
-- s:<status>, sh:<status>:<hook>, st:<status>:<topic>.
local function ix_status_keys(tag, hook, topic, status)
  return tag .. ':ix:s:' .. status, tag .. ':ix:sh:' .. status .. ':' .. hook, tag .. ':ix:st:' .. status .. ':' .. topic
end

local function ix_add_status(tag, id, hook, topic, status)
  local a, b, c = ix_status_keys(tag, hook, topic, status)
  redis.call('ZADD', a, 0, id)
  redis.call('ZADD', b, 0, id)
  redis.call('ZADD', c, 0, id)
end

local function ix_rem_status(tag, id, hook, topic, status)
  local a, b, c = ix_status_keys(tag, hook, topic, status)
  redis.call('ZREM', a, id)
  redis.call('ZREM', b, id)
  redis.call('ZREM', c, id)
end

local function ix_add_run(tag, id, hook, topic, status)
  redis.call('ZADD', tag .. ':ix:all', 0, id)
  redis.call('ZADD', tag .. ':ix:h:' .. hook, 0, id)
  redis.call('ZADD', tag .. ':ix:t:' .. topic, 0, id)
  ix_add_status(tag, id, hook, topic, status)
end

local function ix_drop_run(tag, id, hook, topic, status)
  redis.call('ZREM', tag .. ':ix:all', id)
  redis.call('ZREM', tag .. ':ix:h:' .. hook, id)
  redis.call('ZREM', tag .. ':ix:t:' .. topic, id)
  ix_rem_status(tag, id, hook, topic, status)
end
