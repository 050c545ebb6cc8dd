-- Fragment: moves of a run between states, shared by every run script.
-- `c` is the run's context: { tag, id, run, due, lease, done } (keys of its partition).
--
-- Redis Cluster: a run script declares the keys it is given (run, due, lease,
-- done) and also touches keys it names itself: its partition's list indexes
-- (index.lua) and, in the sweeps, the runs of the partition. Every one of them
-- is named from ARGV[1], the partition's hash tag {P:p<n>}, which is the hash
-- tag of every declared key (same_slot checks it), so all of them hash to the
-- one slot the script was routed to.
--!include codes
--!include slot
--!include history
--!include index
--!include stats

-- The context of run `id` in partition `tag`; the partition keys as passed in KEYS
-- (due, lease, done), the run's own key built from the tag (same slot).
local function run_ctx(tag, id, due, lease, done)
  return { tag = tag, id = id, run = tag .. ':run:' .. id, due = due, lease = lease, done = done }
end

-- The context of a per-run script: KEYS run, due, lease, done; ARGV[1] tag, ARGV[2] id.
local function script_ctx()
  same_slot(ARGV[1])
  return { tag = ARGV[1], id = ARGV[2], run = KEYS[1], due = KEYS[2], lease = KEYS[3], done = KEYS[4] }
end

-- Sets the status, moving the run between the status indexes. Returns the
-- run's status (before), hook, topic and the attempt's claim time.
local function set_status(c, to, now)
  local f = redis.call('HMGET', c.run, 'status', 'hook', 'topic', 'claimed')
  if f[1] ~= to then ix_move_status(c.tag, c.id, f[1], to) end
  redis.call('HSET', c.run, 'status', to, 'updated', now)
  return f
end

-- Ends the attempt's lease (the token stays: it fences the next claim).
local function clear_lease(c)
  redis.call('HSET', c.run, 'owner', '', 'until', '')
  redis.call('ZREM', c.lease, c.id)
end

-- Ends the live attempt: clears its lease and records which verb ended it
-- (`ended`: complete, fail, schedule_retry, released, lapsed). With the token,
-- which stays, this lets a re-sent end-of-attempt write recognise its own outcome.
-- claim, retry and discard clear `ended`.
local function end_attempt(c, verb)
  clear_lease(c)
  redis.call('HSET', c.run, 'ended', verb)
end

-- The outcomes counted per minute (stats.lua), with the attempt's tool duration.
local STATS_OUTCOMES = { succeeded = 's', failed = 'f', skipped = 'k', denied = 'd' }

-- Ends the run in `to`; finished runs but failed enter the retention index.
local function finish(c, to, now)
  local f = set_status(c, to, now)
  if STATS_OUTCOMES[to] then
    if f[4] and f[4] ~= '' then
      stats_add(c.tag, now, f[2], STATS_OUTCOMES[to], 't' .. stats_bucket(now - tonumber(f[4])))
    else
      stats_add(c.tag, now, f[2], STATS_OUTCOMES[to])
    end
  end
  redis.call('HSET', c.run, 'finished', now, 'due', '')
  redis.call('ZREM', c.due, c.id)
  if to ~= 'failed' then redis.call('ZADD', c.done, now, c.id) end
end

-- Makes the run claimable at `due_at` and dispatchable by the sweep from then.
local function make_due(c, to, due_at, now)
  set_status(c, to, now)
  redis.call('HSET', c.run, 'due', due_at)
  redis.call('ZADD', c.due, due_at, c.id)
end

-- Nil when `token` is the live attempt's, else the error reply:
-- {ERR_NO_RUN} no such run; {ERR_STALE_TOKEN, status, current token} stale token or not running.
local function attempt_guard(c, token)
  local f = redis.call('HMGET', c.run, 'status', 'token')
  if not f[1] then return { ERR_NO_RUN } end
  if f[1] ~= 'running' or f[2] ~= token then return { ERR_STALE_TOKEN, f[1], f[2] or '0' } end
  return nil
end

-- For a write that ends the attempt with `verb`: 'live' when `token` is the
-- live attempt's; 'ended' when the attempt of this same token was already
-- ended by `verb` (a re-send: the caller then compares the stored outcome);
-- else nil and the error reply of attempt_guard.
local function ending_guard(c, token, verb)
  local f = redis.call('HMGET', c.run, 'status', 'token', 'ended')
  if not f[1] then return nil, { ERR_NO_RUN } end
  if f[2] == token then
    if f[1] == 'running' then return 'live' end
    if f[3] == verb then return 'ended' end
  end
  return nil, { ERR_STALE_TOKEN, f[1], f[2] or '0' }
end

-- The refusal of a re-sent ending write whose stored outcome differs.
local function stale_reply(c)
  local f = redis.call('HMGET', c.run, 'status', 'token')
  return { ERR_STALE_TOKEN, f[1], f[2] or '0' }
end

-- The run's head: the values of HEAD_FIELDS, in that order (nil for an absent
-- field), without the bulky fields payload, input, result and history: what
-- outcome writes answer. The store names them (RUN_HEAD_FIELDS in run-hash.ts;
-- a test holds the two lists equal), so the reply carries no field names.
local HEAD_FIELDS = { 'id', 'hook', 'topic', 'status', 'attempts', 'acted', 'acted_ids', 'claim_intent', 'error', 'owner',
  'until', 'token', 'due', 'delivery', 'door', 'verified', 'resumable', 'interaction', 'replay_of', 'trigger_link', 'trace', 'created',
  'updated', 'started', 'finished' }
local function run_head(c)
  return redis.call('HMGET', c.run, unpack(HEAD_FIELDS))
end
