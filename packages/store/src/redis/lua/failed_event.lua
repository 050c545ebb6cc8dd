-- Fragment: keep_failed_event(c, now, base, failed_at)
-- The `hooks_run_failed` platform event of run `c`, just held as failed, kept
-- in the same script as that transition (so a failure alert cannot be lost):
-- one pending run per hook on the topic, read from the partition's copy of the
-- topic's hook index ({P:pN}:topic-hooks:hooks_run_failed, named from the tag:
-- same slot), due at once (the sweep dispatches it). None for a failure on
-- that topic itself (no loops). Door `platform`, not verified. `base` is a fresh 24-char id base of the
-- partition; `failed_at` the ISO time of `now`. At most MAX_HOOKS_PER_EVENT
-- (1296, passed as the literal below) hooks get one.
-- The payload is RUN_FAILED_EVENT_SCHEMA: run_id, hook, topic, attempts, error, acted, failed_at.
--!include new_run
--!include history
local FAILED_TOPIC = 'hooks_run_failed'

local function keep_failed_event(c, now, base, failed_at)
  local f = redis.call('HMGET', c.run, 'hook', 'topic', 'attempts', 'error', 'acted')
  if f[2] == FAILED_TOPIC then return end
  local names = redis.call('ZRANGE', c.tag .. ':topic-hooks:' .. FAILED_TOPIC, 0, 1295)
  if #names == 0 then return end
  local err = (f[4] and f[4] ~= '') and f[4] or 'null'
  local payload = '{"run_id":' .. cjson.encode(c.id) .. ',"hook":' .. cjson.encode(f[1]) .. ',"topic":' .. cjson.encode(f[2])
    .. ',"attempts":' .. tostring(tonumber(f[3]) or 0) .. ',"error":' .. err .. ',"acted":' .. cjson.encode(f[5] or '')
    .. ',"failed_at":' .. cjson.encode(failed_at) .. '}'
  -- keptDetail in run-rules.ts, for door platform.
  local history = '[' .. history_line(now, 0, 'kept', 'event on ' .. FAILED_TOPIC .. ' through the platform door, not verified') .. ']'
  for i, hook in ipairs(names) do
    new_run(c.tag, c.due, run_id_at(base, i), hook, FAILED_TOPIC, payload, '', now, now, history, '', 'platform', '0')
  end
end

-- The n-th fresh id base of one sweep: `base` with its 4 sequence chars (11-14) replaced by n in base36.
local function nth_base(base, n)
  local seq, x = '', n
  for _ = 1, 4 do
    local d = x % 36
    seq = ID_DIGITS:sub(d + 1, d + 1) .. seq
    x = math.floor(x / 36)
  end
  return string.sub(base, 1, 10) .. seq .. string.sub(base, 15)
end
