--[[
  Reads a universe's live push subscriptions by Redis's clock, removing the lapsed ones.

    Input:
      KEYS[1] the universe's subscriptions, {p}:push:subs:{universe} (hash: field KEYID|SERVERID, value EXPIRESMS|CODE,...)

    Output:
      a flat list: Redis's time in ms, then field, value, field, value, ... of every live subscription
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local out = { now }
local lapsed = {}
for i = 1, #all, 2 do
  local value = all[i + 1]
  local bar = string.find(value, '|', 1, true)
  local expires = bar and tonumber(string.sub(value, 1, bar - 1)) or 0
  if expires > now then
    out[#out + 1] = all[i]
    out[#out + 1] = value
  else
    lapsed[#lapsed + 1] = all[i]
  end
end
-- In slices: unpack of thousands of values would overflow Lua's stack.
for i = 1, #lapsed, 1000 do
  redis.call('HDEL', KEYS[1], unpack(lapsed, i, math.min(i + 999, #lapsed)))
end
return out
