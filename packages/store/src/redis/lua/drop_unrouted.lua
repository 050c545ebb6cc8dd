-- drop_unrouted: removes a topic's unrouted events, the given ids or all; a
-- topic left without events leaves the topic index with its counts.
-- KEYS: 1 topic index, 2 the topic's events, 3 the topic's event hash (as keep_unrouted)
-- ARGV: 1 hash tag (of every KEY), 2 topic, 3.. event ids (none: every event of the topic)
-- Returns the number of events removed.
--!include slot
same_slot(ARGV[1])
local topic = ARGV[2]
local removed = 0
if #ARGV == 2 then
  removed = redis.call('ZCARD', KEYS[2])
  redis.call('DEL', KEYS[2], KEYS[3])
else
  for i = 3, #ARGV do
    if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
      removed = removed + 1
      redis.call('HDEL', KEYS[3], ARGV[i])
    end
  end
end
if redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[3])
  redis.call('ZREM', KEYS[1], topic)
end
return removed
