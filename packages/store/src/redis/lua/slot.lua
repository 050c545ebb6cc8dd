-- Fragment: same_slot(tag). Redis Cluster routes a script by its declared
-- KEYS; a script that names further keys itself builds them from the hash tag
-- it is passed. This refuses (raises) unless every declared key carries that
-- tag, so the keys a script names share the declared keys' slot.
local function same_slot(tag)
  for _, key in ipairs(KEYS) do
    if string.sub(key, 1, #tag + 1) ~= tag .. ':' then
      error('key ' .. key .. ' is outside hash tag ' .. tag)
    end
  end
end
