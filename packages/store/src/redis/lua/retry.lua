-- retry: an operator runs a failed run again (attempts reset, a claim intent dropped: its door
-- contract decides again; a started run keeps its start but drops the interaction it parked on:
-- an approval covers exactly one acted call, so the retried start asks the policy again).
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 now ms, 4 who retried it (its history line names them)
-- Returns {0, run fields...}; {ERR_NO_RUN} no such run; {ERR_RUN_STATUS, status} not failed;
-- {ERR_COMMITTED, acted, acted ids JSON} its hook committed a resume or take.
--!include transitions
local c = script_ctx()
local now = tonumber(ARGV[3])
local f = redis.call('HMGET', c.run, 'status', 'acted', 'acted_ids', 'error')
if not f[1] then return { ERR_NO_RUN } end
if f[1] ~= 'failed' then return { ERR_RUN_STATUS, f[1] } end
if f[2] == 'resume' or f[2] == 'take' then return { ERR_COMMITTED, f[2], f[3] } end
-- Same words as operatorRetryDetail in run-rules.ts: the history keeps the error the field drops.
local detail = 'retried by ' .. ARGV[4]
if f[4] and f[4] ~= '' then
  local e = cjson.decode(f[4])
  detail = detail .. '; last error ' .. e.kind .. ': ' .. e.message
end
redis.call('HSET', c.run, 'attempts', 0, 'error', '', 'result', '', 'finished', '', 'ended', '', 'claim_intent', '')
if f[2] ~= 'start' then redis.call('HSET', c.run, 'acted', '', 'acted_ids', '[]') else redis.call('HSET', c.run, 'interaction', '') end
redis.call('ZREM', c.done, c.id)
make_due(c, 'pending', now, now)
append_history(c.run, now, 0, 'retried', detail)
return { 0, redis.call('HGETALL', c.run) }
