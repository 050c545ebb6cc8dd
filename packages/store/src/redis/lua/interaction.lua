-- Fragment: interactions of one partition, beside its runs (same hash tag, so
-- an interaction and its run move in one script). Keys, from the tag {P:p<n>}:
--   tag:int:<id>                 hash  one interaction (fields: interaction-hash.ts)
--   tag:int:ix:all               zset  score 0, every interaction by id (= creation time)
--   tag:int:ix:s:<status> / :int:ix:k:<kind> / :int:ix:h:<hook> / :int:ix:r:<run>
--   tag:int:open:<subject text>  zset  score 0, the open interactions on one subject
--   tag:int:expiry               zset  open interactions by expires_at (ms)
--!include transitions

local function int_key(tag, id) return tag .. ':int:' .. id end

-- Moves interaction `id` from status index `from` to `to` (from nil: a new one).
local function int_move_status(tag, id, from, to)
  if from then redis.call('ZREM', tag .. ':int:ix:s:' .. from, id) end
  redis.call('ZADD', tag .. ':int:ix:s:' .. to, 0, id)
end

-- Wakes the run parked on interaction `id` after its resolution: due now
-- (`pending`), or ended `cancelled`. A run no longer parked on it is left alone.
local function wake_run(tag, run_id, id, to, status_word, detail, now, due, lease, done)
  local c = run_ctx(tag, run_id, due, lease, done)
  local f = redis.call('HMGET', c.run, 'status', 'interaction', 'attempts')
  if f[1] ~= 'parked' or f[2] ~= id then return end
  redis.call('HSET', c.run, 'ended', '')
  if to == 'cancelled' then
    redis.call('HSET', c.run, 'result', cjson.encode({ cancelled = id }))
    finish(c, 'cancelled', now)
    append_history(c.run, now, f[3], 'cancelled', detail)
  else
    make_due(c, 'pending', now, now)
    append_history(c.run, now, f[3], 'woken', detail)
  end
end

-- Resolves open interaction `id` to status `to`. Returns nil, or the error reply:
-- {ERR_NO_INTERACTION} no such interaction; {ERR_RESOLVED, status, by, via, at ms} already resolved.
-- `wake` false leaves the run alone (discard: the run is ending anyway).
local function resolve_int(tag, id, to, by, via, reason, payload, extras, now, detail, due, lease, done, wake)
  local key = int_key(tag, id)
  local f = redis.call('HMGET', key, 'status', 'res_by', 'res_via', 'res_at', 'run', 'subject_text')
  if not f[1] then return { ERR_NO_INTERACTION } end
  if f[1] ~= 'open' then return { ERR_RESOLVED, f[1], f[2] or '', f[3] or '', f[4] or '' } end
  redis.call('HSET', key, 'status', to, 'res_by', by, 'res_via', via, 'res_at', now, 'res_reason', reason, 'res_payload', payload, 'res_extras', extras)
  int_move_status(tag, id, 'open', to)
  redis.call('ZREM', tag .. ':int:expiry', id)
  if f[6] and f[6] ~= '' then redis.call('ZREM', tag .. ':int:open:' .. f[6], id) end
  if wake then
    wake_run(tag, f[5], id, to == 'cancelled' and 'cancelled' or 'pending', to, detail, now, due, lease, done)
  end
  return nil
end

-- complete's step: a run re-dispatched by a resume or an approval keeps its
-- outcome on that interaction (once), for a later take. `result` is JSON text.
local function keep_outcome(c, status, result, now)
  local id = redis.call('HGET', c.run, 'interaction')
  if not id or id == '' then return end
  local key = int_key(c.tag, id)
  local f = redis.call('HMGET', key, 'status', 'outcome')
  if (f[1] ~= 'resumed' and f[1] ~= 'approved') or (f[2] and f[2] ~= '') then return end
  local outcome = '{"run":' .. cjson.encode(c.id) .. ',"status":' .. cjson.encode(status) .. ',"result":' .. result .. ',"at":' .. tostring(tonumber(now)) .. '}'
  redis.call('HSET', key, 'outcome', outcome)
end

-- Retention: deletes every interaction of run `run_id` (its run is being
-- deleted), with their index entries. A kept outcome lives as long as its run.
local function drop_run_interactions(tag, run_id)
  local rix = tag .. ':int:ix:r:' .. run_id
  for _, id in ipairs(redis.call('ZRANGE', rix, 0, -1)) do
    local key = int_key(tag, id)
    local f = redis.call('HMGET', key, 'kind', 'hook', 'status', 'subject_text')
    if f[1] then
      redis.call('ZREM', tag .. ':int:ix:all', id)
      redis.call('ZREM', tag .. ':int:ix:k:' .. f[1], id)
      redis.call('ZREM', tag .. ':int:ix:h:' .. f[2], id)
      redis.call('ZREM', tag .. ':int:ix:s:' .. f[3], id)
      redis.call('ZREM', tag .. ':int:expiry', id)
      if f[4] and f[4] ~= '' then redis.call('ZREM', tag .. ':int:open:' .. f[4], id) end
      redis.call('DEL', key)
    end
  end
  redis.call('DEL', rix)
end
