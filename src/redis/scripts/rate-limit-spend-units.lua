--[[
  Spends several points of one client's budget at once (the log events budget: one point per event of a batch,
  rate-limits.ts createUnitBudget), all or none: when the window cannot take them all, nothing is spent. Same fixed
  window and key layout as rate-limit-spend.lua: the key is the window's count and expires when the window ends.

    Input:
      KEYS[1] the budget's count for the client, {p}:rl:{budget}:{client} (string, PX = rest of the window)
      ARGV[1] points to spend (a positive integer)
      ARGV[2] the budget's points per window
      ARGV[3] the window in ms

    Output:
      { spent (1) or refused (0), the window's count after the call, ms until the window ends }
]]
local key = KEYS[1]
local units = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local used = tonumber(redis.call('GET', key) or '0')
local left = redis.call('PTTL', key)
if used > 0 and left < 0 then
  -- A count without an expiry (written by hand) would never end: it gets a window from now.
  redis.call('PEXPIRE', key, window)
  left = window
end
if used + units > limit then
  if used == 0 then left = 0 end
  return { 0, used, left }
end
used = redis.call('INCRBY', key, units)
if used == units then
  redis.call('PEXPIRE', key, window)
  left = window
end
return { 1, used, left }
