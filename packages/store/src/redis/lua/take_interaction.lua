-- take_interaction: consumes the outcome a resumed run kept on its interaction, once.
-- KEYS: 1 interaction hash
-- Also reads (undeclared, named from ARGV[1], the hash tag of KEYS[1]: same
-- slot) the interaction's run and moves its status index.
-- ARGV: 1 partition hash tag, 2 interaction id, 3 by, 4 now ms
-- Returns {0, interaction fields}; {ERR_NO_INTERACTION} no such interaction; {ERR_TAKEN, by, at ms} already taken;
-- {ERR_TAKE_OPEN} still open; {ERR_TAKE_STATUS, status} not resumed or approved; {ERR_TAKE_NOT_READY, run, run status} its run
-- has not finished; {ERR_TAKE_NOTHING_KEPT, run, run status} its run ended without an outcome.
--!include interaction
local tag, id = ARGV[1], ARGV[2]
same_slot(tag)
local f = redis.call('HMGET', KEYS[1], 'status', 'outcome', 'run', 'taken_by', 'taken_at')
if not f[1] then return { ERR_NO_INTERACTION } end
if f[1] == 'taken' then return { ERR_TAKEN, f[4] or '', f[5] or '' } end
if f[1] == 'open' then return { ERR_TAKE_OPEN } end
if f[1] ~= 'resumed' and f[1] ~= 'approved' then return { ERR_TAKE_STATUS, f[1] } end
if not f[2] or f[2] == '' then
  local status = redis.call('HGET', tag .. ':run:' .. f[3], 'status') or 'expired by retention'
  if status == 'pending' or status == 'running' or status == 'retry_wait' then return { ERR_TAKE_NOT_READY, f[3], status } end
  return { ERR_TAKE_NOTHING_KEPT, f[3], status }
end
redis.call('HSET', KEYS[1], 'status', 'taken', 'taken_by', ARGV[3], 'taken_at', ARGV[4])
int_move_status(tag, id, f[1], 'taken')
return { 0, redis.call('HGETALL', KEYS[1]) }
