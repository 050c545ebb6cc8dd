-- resolve_interaction: resolves an open interaction once (approved, denied,
-- resumed, cancelled, expired) and, in the same step, wakes its parked run:
-- due now (pending), or ended `cancelled` for a cancel.
-- KEYS: 1 interaction hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- Also touches (undeclared, named from ARGV[1], the hash tag of every declared
-- key: same slot) the interaction's indexes and its run.
-- ARGV: 1 partition hash tag, 2 interaction id, 3 status, 4 by, 5 via, 6 reason, 7 payload (JSON), 8 now ms, 9 run history detail,
--       10 extras (JSON object or '')
-- Returns {0, interaction fields, run fields or {}}; {ERR_NO_INTERACTION} no such interaction;
-- {ERR_RESOLVED, status, by, via, at ms} already resolved.
--!include interaction
local tag, id = ARGV[1], ARGV[2]
same_slot(tag)
local refused = resolve_int(tag, id, ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[10], tonumber(ARGV[8]), ARGV[9], KEYS[2], KEYS[3], KEYS[4], true)
if refused then return refused end
local run_id = redis.call('HGET', KEYS[1], 'run')
return { 0, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', tag .. ':run:' .. run_id) }
