--[[
  Gives a delivery lease up, only while it is still ours: a release never removes another holder's lease.

    Input:
      KEYS[1] lease key, {p}:delivery:lease:{category} (string: holder token)

      ARGV[1] holder token

    Output:
      1 when removed, 0 when it was not ours (or already gone)
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
