-- read_stats: one partition's run counters (stats.lua) of minutes ARGV[2] to
-- ARGV[3], read in one step rather than one HGETALL per minute from the client
-- (a day is 1,440 minutes). Writes nothing.
-- KEYS: 1 the partition's counter key of the first minute ({prefix:pN}:stats:<first>): routes the script to the partition's slot
-- Also reads (undeclared, named from ARGV[1], the hash tag of KEYS[1]: same
-- slot) the counter keys of the later minutes.
-- ARGV: 1 partition hash tag, 2 first minute, 3 last minute (floor(ms / 60000))
-- Returns {minute, {field, value, ...}, minute, {...}, ...}: each minute that has counters.
--!include slot
same_slot(ARGV[1])
local out = {}
for m = tonumber(ARGV[2]), tonumber(ARGV[3]) do
  local fields = redis.call('HGETALL', ARGV[1] .. ':stats:' .. m)
  if #fields > 0 then
    out[#out + 1] = m
    out[#out + 1] = fields
  end
end
return out
