-- remove_agent: removes an agent principal and its token in one step (the token is refused at once).
-- KEYS: 1 agents hash ({prefix}:agents), 2 agent token index ({prefix}:agent-tokens)
-- ARGV: 1 name
-- Returns {1, agent JSON} removed (the record it was: its id names what was its); {0} no such agent.
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return { 0 } end
redis.call('HDEL', KEYS[2], cjson.decode(held).token_hash)
redis.call('HDEL', KEYS[1], ARGV[1])
return { 1, held }
