-- use_trigger_link: finds a trigger link by its token's hash (one HGET) and
-- takes one use of it, the check and the count in one step: a link at its
-- max uses refuses every later use, however many come at once.
-- KEYS: 1 token hashes ({prefix}:trigger-tokens)
-- Also reads and writes (undeclared, named from ARGV[1], the hash tag of KEYS[1]:
-- same slot) the link hash {prefix}:trigger-link:<id>.
-- ARGV: 1 hook key prefix ({prefix}), 2 token hash, 3 now ms
-- Returns {0, link fields...} used (uses already counted, last_used set to now); {1, reason} refused:
-- unknown, revoked, expired (expires <= now) or used_up (uses >= max uses).
--!include slot
same_slot(ARGV[1])
local id = redis.call('HGET', KEYS[1], ARGV[2])
if not id then return { 1, 'unknown' } end
local key = ARGV[1] .. ':trigger-link:' .. id
local f = redis.call('HMGET', key, 'hook', 'revoked', 'expires', 'uses', 'max_uses')
if not f[1] then return { 1, 'unknown' } end
if f[2] == '1' then return { 1, 'revoked' } end
if f[3] and f[3] ~= '' and tonumber(f[3]) <= tonumber(ARGV[3]) then return { 1, 'expired' } end
if f[5] and f[5] ~= '' and tonumber(f[4] or '0') >= tonumber(f[5]) then return { 1, 'used_up' } end
redis.call('HINCRBY', key, 'uses', 1)
redis.call('HSET', key, 'last_used', ARGV[3])
return { 0, redis.call('HGETALL', key) }
