-- take_interaction: consumes the outcome a resumed run kept on its interaction, once.
-- KEYS: 1 interaction hash
-- Also reads (undeclared, named from ARGV[1], the hash tag of KEYS[1]: same
-- slot) the interaction's run and moves its status index.
-- ARGV: 1 partition hash tag, 2 interaction id, 3 by, 4 now ms
-- Returns {0, interaction fields}; {ERR.no_interaction} no such interaction; {ERR.taken, by, at ms} already taken;
-- {ERR.take_open} still open; {ERR.take_status, status} not resumed or approved; {ERR.take_not_ready, run, run status} its run
-- has not finished; {ERR.take_nothing_kept, run, run status} its run ended without an outcome.
--!include interaction
local tag, id = ARGV[1], ARGV[2]
same_slot(tag)
local f = redis.call('HMGET', KEYS[1], 'status', 'outcome', 'run', 'taken_by', 'taken_at')
if not f[1] then return { ERR.no_interaction } end
if f[1] == 'taken' then return { ERR.taken, f[4] or '', f[5] or '' } end
if f[1] == 'open' then return { ERR.take_open } end
if f[1] ~= 'resumed' and f[1] ~= 'approved' then return { ERR.take_status, f[1] } end
if not f[2] or f[2] == '' then
  local status = redis.call('HGET', tag .. ':run:' .. f[3], 'status') or 'expired by retention'
  if status == 'pending' or status == 'running' or status == 'retry_wait' then return { ERR.take_not_ready, f[3], status } end
  return { ERR.take_nothing_kept, f[3], status }
end
redis.call('HSET', KEYS[1], 'status', 'taken', 'taken_by', ARGV[3], 'taken_at', ARGV[4])
int_move_status(tag, id, f[1], 'taken')
return { 0, redis.call('HGETALL', KEYS[1]) }
