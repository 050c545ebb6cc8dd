-- drop_unrouted: removes a topic's unrouted events, the given ids or all, and
-- takes their bytes off the usage; a topic left without events leaves the
-- topic index with its counts.
-- KEYS: 1 topic index, 2 the topic's events, 3 the topic's event hash,
--       4 every event, 5 their sizes and topics, 6 the usage (as keep_unrouted)
-- ARGV: 1 hash tag (of every KEY), 2 topic, 3.. event ids (none: every event of the topic)
-- Returns the number of events removed.
--!include slot
--!include unrouted_forget
local tag, topic = ARGV[1], ARGV[2]
same_slot(tag)
local ids = {}
if #ARGV == 2 then
  ids = redis.call('ZRANGE', KEYS[2], 0, -1)
else
  for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end
end
local removed = 0
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', KEYS[2], id) then
    forget(tag, topic, id)
    removed = removed + 1
  end
end
settle(tag, topic)
return removed
