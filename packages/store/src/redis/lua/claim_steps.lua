-- Fragment: the steps of a claim, shared by claim.lua and claim_planned.lua.
-- `f` is what the claim read of the run, starting with: 1 status, 2 due,
-- 3 started, 4 hook, 5 created.
--!include transitions

-- The run waits for a claim (pending or retry_wait) and is due by `now`.
local function claimable(f, now)
  return (f[1] == 'pending' or f[1] == 'retry_wait') and f[2] ~= '' and tonumber(f[2]) <= now
end

-- Counts the attempt and moves the fencing token; the run's first claim records
-- its start and counts its accept-to-start (stats.lua). Returns attempts, token.
local function count_attempt(c, f, now)
  local attempts = redis.call('HINCRBY', c.run, 'attempts', 1)
  local token = redis.call('HINCRBY', c.run, 'token', 1)
  if f[3] == '' then
    redis.call('HSET', c.run, 'started', now)
    stats_add(c.tag, now, f[4], 'q' .. stats_bucket(now - tonumber(f[5])))
  end
  return attempts, token
end

-- Takes the lease for `owner` until now + lease_ms: the run is running, and the
-- attempt's claim time (`claimed`) is `now` (its tool duration runs from there).
local function take_lease(c, owner, lease_ms, now, attempts, detail)
  redis.call('HSET', c.run, 'owner', owner, 'until', now + lease_ms, 'ended', '', 'claimed', now)
  set_status(c, 'running', now)
  redis.call('ZREM', c.due, c.id)
  redis.call('ZADD', c.lease, now + lease_ms, c.id)
  append_history(c.run, now, attempts, 'claimed', detail)
end

-- The hook revision the partition's copy keeps for `hook` ('' for none).
local function hook_revision(c, hook)
  return redis.call('HGET', c.tag .. ':hook-revs', hook) or ''
end
