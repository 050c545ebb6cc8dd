-- record_audit: keeps one audit trail entry in its list (changes or refused
-- attempts) and drops the entries past the trail's bounds: those older than
-- the retention, from either list (at most ARGV[6] per call, the rest on
-- later calls; a listing never shows them), and the oldest of the entry's own
-- list past that list's count bound, so refusals never push out a change.
-- Entries kept before the lists existed are in no list: they leave by age.
-- KEYS: 1 the entry index (zset, score 0, every id in lexical = time order), 2 the entries (hash id -> JSON),
--       3 the changes' ids (zset), 4 the refused attempts' ids (zset)
-- ARGV: 1 hash tag (of every KEY), 2 entry id, 3 entry JSON, 4 the id bound of the oldest time kept
--       (ids below it are past the retention), 5 most entries kept in the entry's list,
--       6 most expired entries dropped now, 7 the entry's list: 'changes' or 'refused'
-- Returns the number of entries of the entry's list dropped for its count bound.
--!include slot
same_slot(ARGV[1])
local list = KEYS[3]
if ARGV[7] == 'refused' then list = KEYS[4] end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
redis.call('ZADD', list, 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
local function forget(id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
  redis.call('HDEL', KEYS[2], id)
end
local expired = redis.call('ZRANGEBYLEX', KEYS[1], '-', '(' .. ARGV[4], 'LIMIT', 0, tonumber(ARGV[6]))
for _, id in ipairs(expired) do
  forget(id)
end
local dropped = 0
local over = redis.call('ZCARD', list) - tonumber(ARGV[5])
if over > 0 then
  local oldest = redis.call('ZRANGE', list, 0, over - 1)
  for _, id in ipairs(oldest) do
    forget(id)
    dropped = dropped + 1
  end
end
return dropped
