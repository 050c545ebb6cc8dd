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
-- ARGV: one positional table, named once below (`a`); the store sends it in this
--   order (PLANNED_CLAIM_ARGS, redis/planned-claim-args.ts; a test holds the two equal):
--   1 tag: partition hash tag, 2 id: run id, 3 owner, 4 lease_ms, 5 now (ms), 6 claim_detail: the claim's history detail,
--   7 revision: the hook revision planned with, 8 plan: 'start' | 'skip',
--   9 value: start: input (JSON) | skip: result (JSON), 10 resumable: start: 0/1,
--   11 plan_detail: the plan's history detail (acted / skipped), 12 note_event: a note's event ('' for none), 13 note_detail,
--   14 payload: the payload text the plan was made from (at most the hint's 32 KiB), 15 policy_version: the approval policy
--   version it was decided with, 16 topic: the topic it was decided for, 17 nonce: this call's nonce (kept as claim_nonce:
--   a re-send of the call answers the claim it made, as it was answered the first time)
-- Also reads (undeclared, same slot as every KEY) {prefix:pN}:hook-revs, as claim.lua.
-- Returns {0, token, run head fields, revision, 'start' | 'skipped'} the plan was applied;
-- {0, token, run fields (HGETALL), revision, 'claimed'} claimed only (as claim.lua);
-- {1} not claimable; {ERR.no_run} no such run.
--!include claim_steps
local a = {
  owner = ARGV[3], lease_ms = tonumber(ARGV[4]), now = tonumber(ARGV[5]), claim_detail = ARGV[6], revision = ARGV[7], plan = ARGV[8],
  value = ARGV[9], resumable = ARGV[10], plan_detail = ARGV[11], note_event = ARGV[12], note_detail = ARGV[13], payload = ARGV[14],
  policy_version = ARGV[15], topic = ARGV[16], nonce = ARGV[17],
}
local c = script_ctx()
local now = a.now
local f = redis.call('HMGET', c.run, 'status', 'due', 'started', 'hook', 'created', 'attempts', 'acted', 'interaction', 'claim_intent', 'door', 'topic',
  'claim_nonce')
if not f[1] then return { ERR.no_run } end
if f[12] == a.nonce then
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
  and f[11] == a.topic and revision ~= '' and revision == a.revision and (revs[2] or '0') == a.policy_version
  and redis.call('HGET', c.run, 'payload') == a.payload
local attempts, token = count_attempt(c, f, now)
redis.call('HSET', c.run, 'claim_nonce', a.nonce)
if plain and a.plan == 'skip' then
  -- Claimed and ended in one step: no lease is taken, the attempt is ended by `complete`.
  redis.call('HSET', c.run, 'owner', '', 'until', '', 'ended', 'complete', 'claimed', now, 'result', a.value, 'error', '')
  append_history(c.run, now, attempts, 'claimed', a.claim_detail)
  finish(c, 'skipped', now)
  append_history(c.run, now, attempts, 'skipped', a.plan_detail)
  return { 0, token, run_head(c), revision, 'skipped' }
end
take_lease(c, a.owner, a.lease_ms, now, attempts, a.claim_detail)
if not plain or a.plan ~= 'start' then
  return { 0, token, redis.call('HGETALL', c.run), revision, 'claimed' }
end
if a.note_event ~= '' then append_history(c.run, now, attempts, a.note_event, a.note_detail) end
redis.call('HSET', c.run, 'acted', 'start', 'acted_ids', '[]', 'resumable', a.resumable, 'claim_intent', '', 'input', a.value)
append_history(c.run, now, attempts, 'acted', a.plan_detail)
return { 0, token, run_head(c), revision, 'start' }
