-- revoke_trigger_link: revokes a hook's trigger link at once (the next use is
-- refused); revoking it again changes nothing.
-- KEYS: 1 the link hash ({prefix}:trigger-link:<id>)
-- ARGV: 1 hook key prefix ({prefix}), 2 hook
-- Returns {0, link fields...} revoked; {0} the hook has no such link.
--!include slot
same_slot(ARGV[1])
if redis.call('HGET', KEYS[1], 'hook') ~= ARGV[2] then return { 0 } end
redis.call('HSET', KEYS[1], 'revoked', '1')
return { 0, redis.call('HGETALL', KEYS[1]) }
