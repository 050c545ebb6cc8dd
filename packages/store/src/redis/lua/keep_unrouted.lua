-- keep_unrouted: keeps one event on a topic that has no hook, within the
-- bounds: the newest ARGV[6] per topic, none older than the retention, at most
-- ARGV[7] topics (past it the topic last seen longest ago goes, with its
-- events), and at most ARGV[9] bytes of event JSON over every topic (past it
-- the oldest events go, whatever their topic: an unrouted event is a clue to a
-- sender's mistake, and the newest clue is the useful one; each one dropped
-- for space is counted in the usage hash). Runs after keep_event found no
-- hook on the topic: keep_event runs in a run partition's slot and every
-- unrouted event lives in one slot of its own, so the two cannot be one
-- script on a Redis Cluster (see redis-unrouted.ts).
-- KEYS: 1 the topic index ({prefix:unrouted}:topics, topic -> last seen ms),
--       2 the topic's events ({prefix:unrouted}:ev:<topic>, id -> received ms),
--       3 the topic's event hash ({prefix:unrouted}:data:<topic>, id -> JSON; #received, #first),
--       4 every event ({prefix:unrouted}:all, id -> received ms),
--       5 their sizes and topics ({prefix:unrouted}:owner, id -> "<bytes> <topic>"),
--       6 the usage ({prefix:unrouted}:usage: bytes, dropped)
-- Also deletes (undeclared, named from ARGV[1], the hash tag of every KEY) the
-- events and the ev:/data: keys of other topics it drops.
-- ARGV: 1 hash tag, 2 topic, 3 event id, 4 event JSON (already cut to the
--       per-event bound by the caller), 5 now ms, 6 keep per topic,
--       7 max topics, 8 retention ms, 9 max bytes
-- Returns {0, events kept on the topic, topics dropped, events dropped for space}.
--!include slot
--!include unrouted_forget
local tag, topic, id, event = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
same_slot(tag)
local now, keep, max_topics, retention = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local max_bytes = tonumber(ARGV[9])
local cutoff = now - retention
local dropped = 0
local function drop_topic(t)
  for _, old in ipairs(redis.call('ZRANGE', tag .. ':ev:' .. t, 0, -1)) do forget(tag, t, old) end
  redis.call('DEL', tag .. ':ev:' .. t, tag .. ':data:' .. t)
  redis.call('ZREM', KEYS[1], t)
  dropped = dropped + 1
end
-- Past the retention, on every topic.
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. cutoff)) do
  local t = owner_of(old)
  if t then
    forget(tag, t, old)
    if t ~= topic then settle(tag, t) end
  else
    redis.call('ZREM', KEYS[4], old)
  end
end
for _, t in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)) do
  if t ~= topic then drop_topic(t) end
end
-- (Events kept before sizes were counted are in no index of every event.)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. cutoff)) do
  forget(tag, topic, old)
end
-- A topic whose events are all gone starts again: its counts are of what is kept since.
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) end
local size = #event
redis.call('HSETNX', KEYS[3], '#first', now)
redis.call('HINCRBY', KEYS[3], '#received', 1)
redis.call('ZADD', KEYS[2], now, id)
redis.call('HSET', KEYS[3], id, event)
redis.call('ZADD', KEYS[4], now, id)
redis.call('HSET', KEYS[5], id, size .. ' ' .. topic)
redis.call('HINCRBY', KEYS[6], 'bytes', size)
local over = redis.call('ZCARD', KEYS[2]) - keep
if over > 0 then
  for _, gone in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do forget(tag, topic, gone) end
end
redis.call('ZADD', KEYS[1], now, topic)
local extra = redis.call('ZCARD', KEYS[1]) - max_topics
if extra > 0 then
  for _, t in ipairs(redis.call('ZRANGE', KEYS[1], 0, extra - 1)) do
    if t ~= topic then drop_topic(t) end
  end
end
-- The byte budget: the oldest events go first, this one too if it is the oldest.
local space = 0
while tonumber(redis.call('HGET', KEYS[6], 'bytes') or '0') > max_bytes do
  local oldest = redis.call('ZRANGE', KEYS[4], 0, 0)[1]
  if not oldest then break end
  local t = owner_of(oldest)
  if t then
    forget(tag, t, oldest)
    settle(tag, t)
  else
    redis.call('ZREM', KEYS[4], oldest)
  end
  space = space + 1
end
if space > 0 then redis.call('HINCRBY', KEYS[6], 'dropped', space) end
-- Idle keys clean themselves up once everything in them is past the retention
-- (the usage with them: its dropped count starts again).
for i = 1, 6 do redis.call('PEXPIRE', KEYS[i], retention) end
return { 0, redis.call('ZCARD', KEYS[2]), dropped, space }
