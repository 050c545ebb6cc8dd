-- record_audit: keeps one audit trail entry and drops the entries past the
-- trail's bounds: those older than the retention (at most ARGV[6] per call,
-- the rest on later calls; a listing never shows them) and the oldest past
-- the hard cap on entries.
-- KEYS: 1 the entry index (zset, score 0, ids in lexical = time order), 2 the entries (hash id -> JSON)
-- ARGV: 1 hash tag (of every KEY), 2 entry id, 3 entry JSON, 4 the id bound of the oldest time kept
--       (ids below it are past the retention), 5 most entries kept, 6 most expired entries dropped now
-- Returns the number of entries dropped.
--!include slot
same_slot(ARGV[1])
redis.call('ZADD', KEYS[1], 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
local dropped = 0
local expired = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[4], 'LIMIT', 0, tonumber(ARGV[6]))
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  dropped = dropped + 1
end
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[5])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  for _, id in ipairs(oldest) do
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    dropped = dropped + 1
  end
end
return dropped
