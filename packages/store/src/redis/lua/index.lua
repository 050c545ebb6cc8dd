-- Fragment: the list indexes of one partition. Sorted sets with score 0, so
-- members order by id (ids start with their creation time) and a page is one
-- ZREVRANGEBYLEX. Keys are built from the partition's hash tag `tag`, so they
-- live in the run's slot. Per run: all, h:<hook>, t:<topic> and s:<status>;
-- a status change moves the run between two status indexes. A filter on two
-- or three of status, hook and topic reads the smallest of their indexes and
-- checks the others' membership (list.ts), so no combined index is kept (the
-- sh:/st: indexes of earlier versions are removed at start, setup.ts).
local function ix_move_status(tag, id, from, to)
  redis.call('ZREM', tag .. ':ix:s:' .. from, id)
  redis.call('ZADD', tag .. ':ix:s:' .. to, 0, id)
end

local function ix_add_run(tag, id, hook, topic, status)
  redis.call('ZADD', tag .. ':ix:all', 0, id)
  redis.call('ZADD', tag .. ':ix:h:' .. hook, 0, id)
  redis.call('ZADD', tag .. ':ix:t:' .. topic, 0, id)
  redis.call('ZADD', tag .. ':ix:s:' .. status, 0, id)
end

local function ix_drop_run(tag, id, hook, topic, status)
  redis.call('ZREM', tag .. ':ix:all', id)
  redis.call('ZREM', tag .. ':ix:h:' .. hook, id)
  redis.call('ZREM', tag .. ':ix:t:' .. topic, id)
  redis.call('ZREM', tag .. ':ix:s:' .. status, id)
end
