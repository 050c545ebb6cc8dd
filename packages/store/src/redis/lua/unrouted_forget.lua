-- Fragment: forget(tag, t, id) and settle(t) for the unrouted scripts, whose
-- KEYS are 1 the topic index, 4 every event ({tag}:all, id -> received ms),
-- 5 their owners ({tag}:owner, id -> "<bytes> <topic>"), 6 the usage
-- ({tag}:usage: bytes, dropped). A topic's own keys are named from the tag.
-- forget removes one event wherever it is kept and takes its bytes off the
-- usage; answers the bytes (0 for an event kept before sizes were counted).
local function forget(tag, t, id)
  local owned = redis.call('HGET', KEYS[5], id)
  local size = owned and tonumber(string.match(owned, '^(%d+) ')) or 0
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[5], id)
  redis.call('ZREM', tag .. ':ev:' .. t, id)
  redis.call('HDEL', tag .. ':data:' .. t, id)
  if size > 0 then redis.call('HINCRBY', KEYS[6], 'bytes', -size) end
  return size
end
-- A topic left without events leaves the topic index with its counts.
local function settle(tag, t)
  if redis.call('ZCARD', tag .. ':ev:' .. t) == 0 then
    redis.call('DEL', tag .. ':data:' .. t)
    redis.call('ZREM', KEYS[1], t)
  end
end
-- The topic of a kept event, from its owner entry (nil when not counted).
local function owner_of(id)
  local owned = redis.call('HGET', KEYS[5], id)
  return owned and string.match(owned, '^%d+ (.*)$') or nil
end
