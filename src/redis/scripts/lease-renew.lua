--[[
  Extends a delivery lease, only while it is still ours (compare-and-set on the token).

    Input:
      KEYS[1] lease key, {p}:delivery:lease:{category} (string: holder token)

      ARGV[1] holder token
      ARGV[2] lease life in ms from now

    Output:
      1 when renewed, 0 when the lease expired or another holder took it
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
