-- update_agent: replaces an agent's description and allowlist, if it is still as it was read.
-- KEYS: 1 agents hash ({prefix}:agents)
-- ARGV: 1 name, 2 the agent JSON as read (compare-and-set), 3 the new agent JSON (same token_hash)
-- Returns {0} updated; {1} no such agent; {2} the agent changed since it was read (read again).
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return { 1 } end
if held ~= ARGV[2] then return { 2 } end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return { 0 }
