-- take_interaction: consumes the outcome a resumed run kept on its interaction, once.
-- KEYS: 1 interaction hash
-- Also reads (undeclared, named from ARGV[1], the hash tag of KEYS[1]: same
-- slot) the interaction's run and moves its status index.
-- ARGV: 1 partition hash tag, 2 interaction id, 3 by, 4 now ms
-- Returns {0, interaction fields}; {-1} no such interaction; {-4, by, at ms} already taken;
-- {-5} still open; {-6, status} not resumed or approved; {-7, run, run status} its run
-- has not finished; {-8, run, run status} its run ended without an outcome.
--!include interaction
local tag, id = ARGV[1], ARGV[2]
same_slot(tag)
local f = redis.call('HMGET', KEYS[1], 'status', 'outcome', 'run', 'taken_by', 'taken_at')
if not f[1] then return { -1 } end
if f[1] == 'taken' then return { -4, f[4] or '', f[5] or '' } end
if f[1] == 'open' then return { -5 } end
if f[1] ~= 'resumed' and f[1] ~= 'approved' then return { -6, f[1] } end
if not f[2] or f[2] == '' then
  local status = redis.call('HGET', tag .. ':run:' .. f[3], 'status') or 'expired by retention'
  if status == 'pending' or status == 'running' or status == 'retry_wait' then return { -7, f[3], status } end
  return { -8, f[3], status }
end
redis.call('HSET', KEYS[1], 'status', 'taken', 'taken_by', ARGV[3], 'taken_at', ARGV[4])
int_move_status(tag, id, f[1], 'taken')
return { 0, redis.call('HGETALL', KEYS[1]) }
