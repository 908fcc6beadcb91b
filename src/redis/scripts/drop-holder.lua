--[[
  Drops a chat user's holder entry, but only while it still points at the revoked code: a rotation may already
  have set the user's new code, which must stay. Runs inside the MULTI that removes the revoked code.

    Input:
      KEYS[1] holders hash, {p}:holders (field = chat user id, value = live CODE)

      ARGV[1] chat user id
      ARGV[2] the revoked CODE

    Output:
      1 when the entry was removed, 0 when it was missing or points at another code
]]
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
