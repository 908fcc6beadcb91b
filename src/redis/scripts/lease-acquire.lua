--[[
  Takes a delivery lease when it is free. A lease still carrying our own token (we lost track of it during a
  Redis error) is taken back at once rather than waited out.

    Input:
      KEYS[1] lease key, {p}:delivery:lease:{category} (string: holder token)

      ARGV[1] holder token `host:pid:random`
      ARGV[2] lease life in ms

    Output:
      1 when the caller holds the lease afterwards, 0 when another holder has it
]]
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
