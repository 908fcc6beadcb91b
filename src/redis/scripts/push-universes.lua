--[[
  Lists the universes with a live push subscription by Redis's clock, removing those whose last one lapsed.

    Input:
      KEYS[1] universes with live subscriptions, {p}:push:universes (sorted set: member universe id, score latest EXPIRESMS)

    Output:
      the universe ids, as strings
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
