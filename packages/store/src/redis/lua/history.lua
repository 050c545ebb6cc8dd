-- Fragment: append_history(run_key, now, attempt, event, detail)
-- Appends one line to the run's JSON history and keeps the last 50
-- (HISTORY_MAX in run-rules.ts). `at` is epoch ms; the store turns it into ISO.
local function append_history(run_key, now, attempt, event, detail)
  local raw = redis.call('HGET', run_key, 'history')
  local h = {}
  if raw and raw ~= '' then h = cjson.decode(raw) end
  local line = { at = tonumber(now), attempt = tonumber(attempt), event = event }
  if detail and detail ~= '' then line.detail = detail end
  h[#h + 1] = line
  while #h > 50 do table.remove(h, 1) end
  redis.call('HSET', run_key, 'history', cjson.encode(h))
end
