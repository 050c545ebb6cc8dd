-- Fragment: moves of a run between states, shared by every run script.
-- `c` is the run's context: { tag, id, run, due, lease, done } (keys of its partition).
--!include history
--!include index

-- The context of run `id` in partition `tag`; the partition keys as passed in KEYS
-- (due, lease, done), the run's own key built from the tag (same slot).
local function run_ctx(tag, id, due, lease, done)
  return { tag = tag, id = id, run = tag .. ':run:' .. id, due = due, lease = lease, done = done }
end

-- The context of a per-run script: KEYS run, due, lease, done; ARGV[1] tag, ARGV[2] id.
local function script_ctx()
  return { tag = ARGV[1], id = ARGV[2], run = KEYS[1], due = KEYS[2], lease = KEYS[3], done = KEYS[4] }
end

-- Sets the status, moving the run between the status indexes.
local function set_status(c, to, now)
  local f = redis.call('HMGET', c.run, 'status', 'hook', 'topic')
  if f[1] ~= to then
    ix_rem_status(c.tag, c.id, f[2], f[3], f[1])
    ix_add_status(c.tag, c.id, f[2], f[3], to)
  end
  redis.call('HSET', c.run, 'status', to, 'updated', now)
end

-- Ends the attempt's lease (the token stays: it fences the next claim).
local function clear_lease(c)
  redis.call('HSET', c.run, 'owner', '', 'until', '')
  redis.call('ZREM', c.lease, c.id)
end

-- Ends the run in `to`; finished runs but failed enter the retention index.
local function finish(c, to, now)
  set_status(c, to, now)
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
-- {-1} no such run; {-2, status, current token} stale token or not running.
local function attempt_guard(c, token)
  local f = redis.call('HMGET', c.run, 'status', 'token')
  if not f[1] then return { -1 } end
  if f[1] ~= 'running' or f[2] ~= token then return { -2, f[1], f[2] or '0' } end
  return nil
end
