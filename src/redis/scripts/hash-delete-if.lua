--[[
  Deletes a hash field only while it holds the value the caller saw (the reconciler removing an {p}:apikeys entry
  that MySQL does not have, without racing a write made since).

    Input:
      KEYS[1] the hash

      ARGV[1] field
      ARGV[2] the value seen

    Output:
      1 when deleted, 0 when the value changed or vanished meanwhile
]]
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
