--[[
  Marks a gateway shard's presences live until Redis's own clock plus a lease, so the gateway's and the fronts' clocks
  never enter into it (fronts judge marks against Redis's clock too, shard-marks.ts). `renew` extends only a mark that
  is still valid now: once a shard's mark has lapsed, fronts stopped trusting its entries, and they must be refreshed
  by a resync (which ends with `set`) before the shard counts as live again. A renewal that waited in a stalled
  connection is judged when Redis runs it, so it cannot revive a mark that lapsed meanwhile.

    Input:
      KEYS[1] {p}:presence:shards (hash: shard id -> epoch ms, Redis's clock, until which its presences count)

      ARGV[1] shard id
      ARGV[2] lease in ms
      ARGV[3] `renew` (only while the current mark is later than now) or `set`

    Output:
      the new mark (epoch ms by Redis's clock), or 0 when `renew` found the mark lapsed or missing (nothing written)
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[3] == 'renew' then
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
  if current <= now then return 0 end
end
local mark = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], mark)
return mark
