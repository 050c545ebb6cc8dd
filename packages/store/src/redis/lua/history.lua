-- Fragment: append_history(run_key, now, attempt, event, detail)
-- Appends one line to the run's JSON history and keeps the last 50
-- (HISTORY_MAX in run-rules.ts). `at` is epoch ms; the store turns it into ISO.
-- The common case splices the encoded line into the stored text (no decode and
-- re-encode of the whole history); the cap is checked by counting `"at":` keys,
-- which cannot occur inside an encoded string (its quotes are escaped).
local HISTORY_MAX = 50

local function history_count(raw)
  local n, from = 0, 1
  while true do
    local i = string.find(raw, '"at":', from, true)
    if not i then return n end
    n, from = n + 1, i + 5
  end
end

local function append_history(run_key, now, attempt, event, detail)
  local raw = redis.call('HGET', run_key, 'history')
  local at, att = tonumber(now), tonumber(attempt)
  if raw and raw ~= '' and raw ~= '[]' and history_count(raw) >= HISTORY_MAX then
    local h = cjson.decode(raw)
    local line = { at = at, attempt = att, event = event }
    if detail and detail ~= '' then line.detail = detail end
    h[#h + 1] = line
    while #h > HISTORY_MAX do table.remove(h, 1) end
    redis.call('HSET', run_key, 'history', cjson.encode(h))
    return
  end
  -- Numbers as cjson writes them (%.14g, the same as tostring).
  local line = '{"at":' .. tostring(at)
  if att then line = line .. ',"attempt":' .. tostring(att) end
  line = line .. ',"event":' .. cjson.encode(event)
  if detail and detail ~= '' then line = line .. ',"detail":' .. cjson.encode(detail) end
  line = line .. '}'
  if raw and raw ~= '' and raw ~= '[]' then
    line = string.sub(raw, 1, -2) .. ',' .. line .. ']'
  else
    line = '[' .. line .. ']'
  end
  redis.call('HSET', run_key, 'history', line)
end
