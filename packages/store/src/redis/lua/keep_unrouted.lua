-- keep_unrouted: keeps one event on a topic that has no hook, within the
-- bounds: the newest ARGV[6] per topic, none older than the retention, at most
-- ARGV[7] topics (past it the topic last seen longest ago goes, with its
-- events). Runs after keep_event found no hook on the topic: keep_event runs
-- in a run partition's slot and every unrouted event lives in one slot of its
-- own, so the two cannot be one script on a Redis Cluster (see redis-unrouted.ts).
-- KEYS: 1 the topic index ({prefix:unrouted}:topics, topic -> last seen ms),
--       2 the topic's events ({prefix:unrouted}:ev:<topic>, id -> received ms),
--       3 the topic's event hash ({prefix:unrouted}:data:<topic>, id -> JSON; #received, #first)
-- Also deletes (undeclared, named from ARGV[1], the hash tag of every KEY) the
-- ev:/data: keys of topics it drops.
-- ARGV: 1 hash tag, 2 topic, 3 event id, 4 event JSON, 5 now ms, 6 keep per topic,
--       7 max topics, 8 retention ms
-- Returns {0, events kept on the topic, topics dropped}.
--!include slot
local tag, topic, id, event = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
same_slot(tag)
local now, keep, max_topics, retention = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local cutoff = now - retention
local dropped = 0
local function drop_topic(t)
  redis.call('DEL', tag .. ':ev:' .. t, tag .. ':data:' .. t)
  redis.call('ZREM', KEYS[1], t)
  dropped = dropped + 1
end
for _, t in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)) do
  if t ~= topic then drop_topic(t) end
end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. cutoff)) do
  redis.call('ZREM', KEYS[2], old)
  redis.call('HDEL', KEYS[3], old)
end
-- A topic whose events are all gone starts again: its counts are of what is kept since.
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) end
redis.call('HSETNX', KEYS[3], '#first', now)
redis.call('HINCRBY', KEYS[3], '#received', 1)
redis.call('ZADD', KEYS[2], now, id)
redis.call('HSET', KEYS[3], id, event)
local over = redis.call('ZCARD', KEYS[2]) - keep
if over > 0 then
  for _, gone in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('HDEL', KEYS[3], gone)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('ZADD', KEYS[1], now, topic)
local extra = redis.call('ZCARD', KEYS[1]) - max_topics
if extra > 0 then
  for _, t in ipairs(redis.call('ZRANGE', KEYS[1], 0, extra - 1)) do
    if t ~= topic then drop_topic(t) end
  end
end
-- Idle keys clean themselves up once everything in them is past the retention.
redis.call('PEXPIRE', KEYS[1], retention)
redis.call('PEXPIRE', KEYS[2], retention)
redis.call('PEXPIRE', KEYS[3], retention)
return { 0, redis.call('ZCARD', KEYS[2]), dropped }
