-- resolve_unknown: an operator's verdict on a run held failed with an unknown outcome
-- (error kind outcome_unknown: its non-resumable tool started and the attempt was
-- interrupted). succeeded: the run ends succeeded with the verdict's result and enters
-- retention, and a run re-dispatched by a resume or approval keeps that outcome on its
-- interaction (keep_outcome). failed: the run stays failed, its error the verdict's
-- (operator_failed). Not counted again in the minute stats: it was counted when it failed.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 now ms, 4 status (succeeded|failed), 5 result (JSON, bounded; '' for none),
--       6 error (JSON {kind, message}; '' for none), 7 history detail (who resolved it, the note)
-- Returns {0, run fields...}; {ERR_NO_RUN} no such run; {ERR_RUN_STATUS, status, error kind} not held with an unknown outcome.
--!include interaction
local c = script_ctx()
local now = tonumber(ARGV[3])
local f = redis.call('HMGET', c.run, 'status', 'error', 'attempts')
if not f[1] then return { ERR_NO_RUN } end
local kind = ''
if f[2] and f[2] ~= '' then kind = cjson.decode(f[2]).kind or '' end
if f[1] ~= 'failed' or kind ~= 'outcome_unknown' then return { ERR_RUN_STATUS, f[1], kind } end
set_status(c, ARGV[4], now)
-- ended 'resolved': the verdict closes the call, so an identical agent call is a new one (keep_agent_call.lua).
redis.call('HSET', c.run, 'result', ARGV[5], 'error', ARGV[6], 'finished', now, 'due', '', 'ended', 'resolved')
if ARGV[4] ~= 'failed' then redis.call('ZADD', c.done, now, c.id) end
append_history(c.run, now, f[3], 'resolved', ARGV[7])
if ARGV[4] == 'succeeded' then keep_outcome(c, 'succeeded', ARGV[5], now) end
return { 0, redis.call('HGETALL', c.run) }
