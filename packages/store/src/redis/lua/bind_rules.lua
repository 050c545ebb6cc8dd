-- Fragment: a hook's binding of a declared state, kept in {prefix}:state-binds
-- (field "scope/kind" -> JSON object hook name -> "*" (no attach path: the
-- whole document, shared with other such hooks) or "-<JSON pointer>").
-- declaration-rules.ts encodes the same and says what overlaps.
local function binding_of(hook_json)
  local s = cjson.decode(hook_json).subject
  if type(s) ~= 'table' then return nil end
  local attach = '*'
  if type(s.attach) == 'string' then attach = '-' .. s.attach end
  return s.scope .. '/' .. s.kind, attach
end

local function overlaps(a, b)
  if a == '*' or b == '*' then return a ~= b end
  local pa, pb = string.sub(a, 2), string.sub(b, 2)
  return pa == pb or string.sub(pb, 1, #pa + 1) == pa .. '/' or string.sub(pa, 1, #pb + 1) == pb .. '/'
end

local function read_binds(binds_key, field)
  local raw = redis.call('HGET', binds_key, field)
  if not raw then return {} end
  return cjson.decode(raw)
end

local function write_binds(binds_key, field, held)
  if next(held) == nil then
    redis.call('HDEL', binds_key, field)
  else
    redis.call('HSET', binds_key, field, cjson.encode(held))
  end
end

local function unbind(binds_key, hook_json, name)
  if not hook_json then return end
  local field = binding_of(hook_json)
  if not field then return end
  local held = read_binds(binds_key, field)
  held[name] = nil
  write_binds(binds_key, field, held)
end
