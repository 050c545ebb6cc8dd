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
-- partition's copy, field ':approval-policy'; none kept is version 0). Otherwise this is exactly claim.lua (the same steps: claim_steps.lua): the caller gets the
-- whole run and plans again after the claim.
-- KEYS: 1 run hash, 2 partition due zset, 3 partition lease zset, 4 partition done zset
-- ARGV: one positional table, named once below (one unpack into locals); the store sends it in this
--   order (PLANNED_CLAIM_ARGS, redis/planned-claim-args.ts; a test holds the two equal):
--   1 tag: partition hash tag, 2 id: run id, 3 owner, 4 lease_ms, 5 now (ms), 6 claim_detail: the claim's history detail,
--   7 planned_revision: the hook revision planned with, 8 plan: 'start' | 'skip',
--   9 value: start: input (JSON) | skip: result (JSON), 10 resumable: start: 0/1,
--   11 plan_detail: the plan's history detail (acted / skipped), 12 note_event: a note's event ('' for none), 13 note_detail,
--   14 payload: the payload text the plan was made from (at most the hint's 32 KiB), 15 policy_version: the approval policy
--   version it was decided with, 16 topic: the topic it was decided for, 17 nonce: this call's nonce (kept as claim_nonce:
--   a re-send of the call answers the claim it made, as it was answered the first time)
-- Also reads (undeclared, same slot as every KEY) {prefix:pN}:hook-revs, as claim.lua.
-- Returns {0, token, run head fields, revision, 'start' | 'skipped'} the plan was applied;
-- {0, token, run fields (HGETALL), revision, 'claimed'} claimed only (as claim.lua);
-- {1} not claimable; {ERR_NO_RUN} no such run.
--!include claim_steps
local owner, lease_ms, now, claim_detail, planned_revision, plan, value, resumable, plan_detail, note_event, note_detail, payload,
  policy_version, topic, nonce = unpack(ARGV, 3, 17)
lease_ms, now = tonumber(lease_ms), tonumber(now)
local c = script_ctx()
local f = redis.call('HMGET', c.run, 'status', 'due', 'started', 'hook', 'created', 'attempts', 'acted', 'interaction', 'claim_intent', 'door', 'topic',
  'claim_nonce')
if not f[1] then return { ERR_NO_RUN } end
if f[12] == nonce then
  -- A re-send of this very call (its answer was lost with the connection): answer the claim it made.
  local token = tonumber(redis.call('HGET', c.run, 'token'))
  local rev = hook_revision(c, f[4])
  if f[1] == 'skipped' then return { 0, token, run_head(c), rev, 'skipped' } end
  if f[1] == 'running' and f[7] == 'start' then return { 0, token, run_head(c), rev, 'start' } end
  if f[1] == 'running' then return { 0, token, redis.call('HGETALL', c.run), rev, 'claimed' } end
end
if not claimable(f, now) then return { 1 } end
local revs = redis.call('HMGET', c.tag .. ':hook-revs', f[4], ':approval-policy')
local revision = revs[1] or ''
-- The plan still holds: a fresh run, as the plan saw it, under the same hook revision and approval policy.
local plain = f[6] == '0' and f[7] == '' and (f[8] or '') == '' and (f[9] or '') == '' and f[10] ~= 'agent'
  and f[11] == topic and revision ~= '' and revision == planned_revision and (revs[2] or '0') == policy_version
  and redis.call('HGET', c.run, 'payload') == payload
local attempts, token = count_attempt(c, f, now)
redis.call('HSET', c.run, 'claim_nonce', nonce)
if plain and plan == 'skip' then
  -- Claimed and ended in one step: no lease is taken, the attempt is ended by `complete`.
  redis.call('HSET', c.run, 'owner', '', 'until', '', 'ended', 'complete', 'claimed', now, 'result', value, 'error', '')
  append_history(c.run, now, attempts, 'claimed', claim_detail)
  finish(c, 'skipped', now)
  append_history(c.run, now, attempts, 'skipped', plan_detail)
  return { 0, token, run_head(c), revision, 'skipped' }
end
take_lease(c, owner, lease_ms, now, attempts, claim_detail)
if not plain or plan ~= 'start' then
  return { 0, token, redis.call('HGETALL', c.run), revision, 'claimed' }
end
if note_event ~= '' then append_history(c.run, now, attempts, note_event, note_detail) end
redis.call('HSET', c.run, 'acted', 'start', 'acted_ids', '[]', 'resumable', resumable, 'claim_intent', '', 'input', value)
append_history(c.run, now, attempts, 'acted', plan_detail)
return { 0, token, run_head(c), revision, 'start' }
