-- put_approval_policy: replaces the deployment's approval rules and bumps the
-- policy version, optionally only if the kept version is the one expected.
-- KEYS: 1 policy hash ({prefix}:approval-policy: version, rules, updated_at)
-- ARGV: 1 hash tag ({prefix}), 2 rules JSON, 3 updated_at (ISO), 4 expected version or '' (any)
-- Returns {0, version} on success; {ERR_POLICY_MOVED, kept version} when the expected version is not the kept one.
--!include slot
--!include codes
same_slot(ARGV[1])
local kept = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= kept then return { ERR_POLICY_MOVED, kept } end
local version = kept + 1
redis.call('HSET', KEYS[1], 'version', version, 'rules', ARGV[2], 'updated_at', ARGV[3])
return { 0, version }
