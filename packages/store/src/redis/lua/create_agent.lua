-- create_agent: keeps a new agent principal and its token's hash, unless the name is taken.
-- KEYS: 1 agents hash ({prefix}:agents), 2 agent token index ({prefix}:agent-tokens)
-- ARGV: 1 name, 2 agent JSON (with token_hash), 3 token SHA-256 (hex)
-- Returns {0} kept; {1} the name is taken.
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return { 1 } end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
return { 0 }
