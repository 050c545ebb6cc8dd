-- copy_policy_version: records the approval policy's version in one partition's
-- slot ({prefix:pN}:hook-revs, field ':approval-policy'), where a planned claim
-- checks it, unless a newer version is already there: copies of two policy
-- writes landing out of order leave the newer.
-- KEYS: 1 the partition's hook revisions hash
-- ARGV: 1 partition hash tag, 2 field, 3 version
-- Returns {0, version kept}.
--!include slot
same_slot(ARGV[1])
local kept = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '-1')
local version = tonumber(ARGV[3])
if version > kept then
  redis.call('HSET', KEYS[1], ARGV[2], version)
  kept = version
end
return { 0, kept }
