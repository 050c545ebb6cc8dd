-- rotate_agent: replaces an agent's token hash; the old token stops working in the same step.
-- KEYS: 1 agents hash ({prefix}:agents), 2 agent token index ({prefix}:agent-tokens)
-- ARGV: 1 name, 2 new agent JSON (with token_hash), 3 old token SHA-256 (hex, as read), 4 new token SHA-256 (hex)
-- Returns {0} rotated; {1} no such agent; {2} the agent changed since it was read (read again).
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return { 1 } end
if cjson.decode(held).token_hash ~= ARGV[3] then return { 2 } end
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return { 0 }
