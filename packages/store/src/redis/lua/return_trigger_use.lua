-- return_trigger_use: gives back one use of a trigger link whose run could not
-- be kept (never below 0; nothing for a link that is gone).
-- KEYS: 1 the link hash ({prefix}:trigger-link:<id>)
-- ARGV: 1 hook key prefix ({prefix})
-- Returns {0, uses after} or {0, -1} when the link is gone.
--!include slot
same_slot(ARGV[1])
local uses = redis.call('HGET', KEYS[1], 'uses')
if not uses then return { 0, -1 } end
if tonumber(uses) <= 0 then return { 0, 0 } end
return { 0, redis.call('HINCRBY', KEYS[1], 'uses', -1) }
