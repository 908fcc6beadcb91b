--[[
  Replaces one game server's push subscription in its universe (an empty codes list ends it), by Redis's clock.

    Input:
      KEYS[1] the universe's subscriptions, {p}:push:subs:{universe} (hash: field KEYID|SERVERID, value EXPIRESMS|CODE,...)
      KEYS[2] universes with live subscriptions, {p}:push:universes (sorted set: member universe id, score latest EXPIRESMS)

      ARGV[1] field KEYID|SERVERID
      ARGV[2] life in ms from now
      ARGV[3] universe id (the member of KEYS[2])
      ARGV[4] codes, comma-separated ('' ends the subscription)

    Output:
      the expiry in epoch ms (Redis's clock); 0 when the subscription was ended
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local life = tonumber(ARGV[2])
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  return 0
end
local expires = now + life
redis.call('HSET', KEYS[1], ARGV[1], expires .. '|' .. ARGV[4])
-- The hash outlives its longest subscription; one whose servers all left goes with its last expiry.
if redis.call('PTTL', KEYS[1]) < life then
  redis.call('PEXPIRE', KEYS[1], life)
end
redis.call('ZADD', KEYS[2], 'GT', expires, ARGV[3])
return expires
