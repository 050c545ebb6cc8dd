-- claim_planned: the claim of a run the executor planned before claiming (from
-- the payload its dispatch message carried), with the plan's first write in the
-- same step when the plan still holds:
--   start: the lease is taken and the tool's start recorded with its input
--          (claim + act: the run is `running`, acted `start`);
--   skip:  the run ends `skipped` with the result (claim + complete; no lease).
-- The plan holds only for a fresh run (never claimed, not acted, no interaction,
-- no claim intent, not an agent's call) on the topic the plan was decided for, whose kept payload is the text the plan
-- was made from (the hint is not trusted: its payload text is compared with the
-- kept payload's, byte for byte), whose hook is still at the revision the plan was made with, and
-- while the approval policy is at the version its decision was made with (the
-- partition's copy, field ':approval-policy'; none kept is version 0). Otherwise this is exactly claim.lua: the caller gets the
-- whole run and plans again after the claim.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: 1 partition hash tag, 2 run id, 3 owner, 4 lease ms, 5 now ms, 6 claim history detail,
--       7 planned hook revision, 8 plan ('start' | 'skip'),
--       9 start: input (JSON) | skip: result (JSON), 10 start: resumable (0/1),
--       11 the plan's history detail (acted / skipped), 12 a note's event ('' for none), 13 its detail,
--       14 the payload text the plan was made from (at most the hint's 32 KiB), 15 the approval policy version it was decided with,
--       16 the topic it was decided for, 17 this call's nonce (kept as claim_nonce: a re-send of the call
--       answers the claim it made, as it was answered the first time)
-- Also reads (undeclared, same slot as every KEY) {prefix:pN}:hook-revs, as claim.lua.
-- Returns {0, token, run head fields, revision, 'start' | 'skipped'} the plan was applied;
-- {0, token, run fields (HGETALL), revision, 'claimed'} claimed only (as claim.lua);
-- {1} not claimable; {-1} no such run.
--!include transitions
local c = script_ctx()
local owner, lease_ms, now = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local f = redis.call('HMGET', c.run, 'status', 'due', 'started', 'hook', 'created', 'attempts', 'acted', 'interaction', 'claim_intent', 'door', 'topic',
  'claim_nonce')
if not f[1] then return { -1 } end
if f[12] == ARGV[17] then
  -- A re-send of this very call (its answer was lost with the connection): answer the claim it made.
  local token = tonumber(redis.call('HGET', c.run, 'token'))
  local rev = redis.call('HGET', c.tag .. ':hook-revs', f[4]) or ''
  if f[1] == 'skipped' then return { 0, token, run_head(c), rev, 'skipped' } end
  if f[1] == 'running' and f[7] == 'start' then return { 0, token, run_head(c), rev, 'start' } end
  if f[1] == 'running' then return { 0, token, redis.call('HGETALL', c.run), rev, 'claimed' } end
end
if (f[1] ~= 'pending' and f[1] ~= 'retry_wait') or f[2] == '' or tonumber(f[2]) > now then return { 1 } end
local revs = redis.call('HMGET', c.tag .. ':hook-revs', f[4], ':approval-policy')
local revision = revs[1] or ''
local plain = f[6] == '0' and f[7] == '' and (f[8] or '') == '' and (f[9] or '') == '' and f[10] ~= 'agent'
  and f[11] == ARGV[16] and revision ~= '' and revision == ARGV[7] and (revs[2] or '0') == ARGV[15]
  and redis.call('HGET', c.run, 'payload') == ARGV[14]
local attempts = redis.call('HINCRBY', c.run, 'attempts', 1)
local token = redis.call('HINCRBY', c.run, 'token', 1)
redis.call('HSET', c.run, 'claim_nonce', ARGV[17])
if f[3] == '' then
  redis.call('HSET', c.run, 'started', now)
  stats_add(c.tag, now, f[4], 'q' .. stats_bucket(now - tonumber(f[5])))
end
if plain and ARGV[8] == 'skip' then
  -- Claimed and ended in one step: no lease is taken, the attempt is ended by `complete`.
  redis.call('HSET', c.run, 'owner', '', 'until', '', 'ended', 'complete', 'claimed', now, 'result', ARGV[9], 'error', '')
  append_history(c.run, now, attempts, 'claimed', ARGV[6])
  finish(c, 'skipped', now)
  append_history(c.run, now, attempts, 'skipped', ARGV[11])
  return { 0, token, run_head(c), revision, 'skipped' }
end
redis.call('HSET', c.run, 'owner', owner, 'until', now + lease_ms, 'ended', '', 'claimed', now)
set_status(c, 'running', now)
redis.call('ZREM', c.due, c.id)
redis.call('ZADD', c.lease, now + lease_ms, c.id)
append_history(c.run, now, attempts, 'claimed', ARGV[6])
if not plain or ARGV[8] ~= 'start' then
  return { 0, token, redis.call('HGETALL', c.run), revision, 'claimed' }
end
if ARGV[12] ~= '' then append_history(c.run, now, attempts, ARGV[12], ARGV[13]) end
redis.call('HSET', c.run, 'acted', 'start', 'acted_ids', '[]', 'resumable', ARGV[10], 'claim_intent', '', 'input', ARGV[9])
append_history(c.run, now, attempts, 'acted', ARGV[11])
return { 0, token, run_head(c), revision, 'start' }
