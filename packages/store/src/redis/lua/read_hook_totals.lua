-- read_hook_totals: one partition's plain run counters (stats.lua: a s f k d p, no
-- histogram) of minutes ARGV[2] to ARGV[3], summed per hook for the hooks whose
-- name starts with ARGV[4], in one step: a day of an agent's counts is a few
-- fields, not 1,440 minute hashes. Writes nothing.
-- KEYS: 1 the partition's counter key of the first minute ({prefix:pN}:stats:<first>): routes the script to the partition's slot
-- Also reads (undeclared, named from ARGV[1], the hash tag of KEYS[1]: same
-- slot) the counter keys of the later minutes.
-- ARGV: 1 partition hash tag, 2 first minute, 3 last minute (floor(ms / 60000)), 4 hook name prefix ('' for every hook)
-- Returns {field, count, field, count, ...}: <m>|<hook> summed over the minutes (the hooks past
-- STATS_MAX_HOOKS of a minute, counted as `*`, only when the prefix is '').
--!include slot
same_slot(ARGV[1])
local PLAIN = { a = true, s = true, f = true, k = true, d = true, p = true }
local prefix = ARGV[4]
local sums, order = {}, {}
for m = tonumber(ARGV[2]), tonumber(ARGV[3]) do
  local fields = redis.call('HGETALL', ARGV[1] .. ':stats:' .. m)
  for i = 1, #fields, 2 do
    local f = fields[i]
    local bar = string.find(f, '|', 1, true)
    if bar and PLAIN[string.sub(f, 1, bar - 1)] and string.sub(f, bar + 1, bar + #prefix) == prefix then
      if not sums[f] then
        sums[f] = 0
        order[#order + 1] = f
      end
      sums[f] = sums[f] + tonumber(fields[i + 1])
    end
  end
end
local out = {}
for _, f in ipairs(order) do
  out[#out + 1] = f
  out[#out + 1] = tostring(sums[f])
end
return out
