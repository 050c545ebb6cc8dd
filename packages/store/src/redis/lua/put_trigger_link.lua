-- put_trigger_link: keeps a new trigger link of a registered hook, in the
-- hooks' slot, so it is checked against the hook record and removed with it
-- by remove_hook in one step each.
-- KEYS: 1 hooks hash ({prefix}:hooks), 2 token hashes ({prefix}:trigger-tokens)
-- Also writes (undeclared, named from ARGV[1], the hash tag of every KEY: same
-- slot) the link hash {prefix}:trigger-link:<id> and the hook's link set
-- {prefix}:hook-trigger-links:<hook>.
-- ARGV: 1 hook key prefix ({prefix}), 2 link id, 3 token hash (SHA-256 hex),
--       4 hook, 5 label, 6 created ms, 7 created by, 8 expires ms ('' never),
--       9 max uses ('' no limit)
-- Returns {0, 1} kept; {0, 0} no such hook (nothing written).
--!include slot
same_slot(ARGV[1])
local tag, id, hook = ARGV[1], ARGV[2], ARGV[4]
if redis.call('HEXISTS', KEYS[1], hook) == 0 then return { 0, 0 } end
redis.call('HSET', tag .. ':trigger-link:' .. id,
  'id', id, 'hook', hook, 'label', ARGV[5], 'created', ARGV[6], 'created_by', ARGV[7],
  'expires', ARGV[8], 'uses', 0, 'max_uses', ARGV[9], 'revoked', '0', 'token', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[3], id)
redis.call('SADD', tag .. ':hook-trigger-links:' .. hook, id)
return { 0, 1 }
