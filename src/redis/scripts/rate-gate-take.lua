--[[
  Takes one slot of the delivery request budget shared by every delivery process: at most ARGV[1] requests in any
  sliding window of ARGV[2] ms, logged in a sorted set scored by Redis time (one clock for every process).

    Input:
      KEYS[1] rate log, {p}:delivery:rate (sorted set: member = unique request token, score = Redis time in ms)

      ARGV[1] budget per window
      ARGV[2] window in ms
      ARGV[3] member for this request (unique per request)

    Output:
      0 when the request may go now (and it is recorded), else the ms until the oldest request leaves the window
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now + 1)
