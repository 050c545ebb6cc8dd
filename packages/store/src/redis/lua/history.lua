-- Fragment: append_history(run_key, now, attempt, event, detail) and
-- history_ends_with(run_key, now, attempt, event, detail).
-- Appends one line to the run's JSON history and keeps the last 50
-- (HISTORY_MAX in run-rules.ts). `at` is epoch ms; the store turns it into ISO.
-- Every line is written by history_line, so the stored text is canonical
-- (fixed key order): a write re-sent after a dropped connection recognises its
-- own line by comparing text. The common case splices the line into the stored
-- text (no decode and re-encode of the whole history); the cap is checked by
-- counting `"at":` keys, which cannot occur inside an encoded string (its
-- quotes are escaped).
local HISTORY_MAX = 50

local function history_count(raw)
  local n, from = 0, 1
  while true do
    local i = string.find(raw, '"at":', from, true)
    if not i then return n end
    n, from = n + 1, i + 5
  end
end

-- One history line as text. Numbers as cjson writes them (%.14g, the same as tostring).
local function history_line(at, attempt, event, detail)
  local line = '{"at":' .. tostring(tonumber(at))
  local att = tonumber(attempt)
  if att then line = line .. ',"attempt":' .. tostring(att) end
  line = line .. ',"event":' .. cjson.encode(event)
  if detail and detail ~= '' then line = line .. ',"detail":' .. cjson.encode(detail) end
  return line .. '}'
end

-- True when the run's last history line is exactly this one (same time, attempt, event, detail).
local function history_ends_with(run_key, now, attempt, event, detail)
  local raw = redis.call('HGET', run_key, 'history')
  if not raw or raw == '' then return false end
  local line = history_line(now, attempt, event, detail)
  local from = #raw - #line - 1
  if from < 1 or string.sub(raw, from + 1, -2) ~= line then return false end
  local before = string.sub(raw, from, from)
  return before == '[' or before == ','
end

local function append_history(run_key, now, attempt, event, detail)
  local raw = redis.call('HGET', run_key, 'history')
  local line = history_line(now, attempt, event, detail)
  if raw and raw ~= '' and raw ~= '[]' and history_count(raw) >= HISTORY_MAX then
    local h = cjson.decode(raw)
    local parts = {}
    for i = #h - HISTORY_MAX + 2, #h do
      local l = h[i]
      parts[#parts + 1] = history_line(l.at, l.attempt, l.event, l.detail)
    end
    parts[#parts + 1] = line
    redis.call('HSET', run_key, 'history', '[' .. table.concat(parts, ',') .. ']')
    return
  end
  if raw and raw ~= '' and raw ~= '[]' then
    line = string.sub(raw, 1, -2) .. ',' .. line .. ']'
  else
    line = '[' .. line .. ']'
  end
  redis.call('HSET', run_key, 'history', line)
end
