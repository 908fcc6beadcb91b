--[[
  Removes a {p}:codes entry that MySQL does not have (drift found by the reconciler), but only while it still holds
  the value the reconciler saw; the holder entry pointing at it, its presence and its share setting go with it.

    Input:
      KEYS[1] codes hash, {p}:codes
      KEYS[2] holders hash, {p}:holders
      KEYS[3] presence hash, {p}:presence
      KEYS[4] share hash, {p}:share

      ARGV[1] change feed channel, {p}:feed
      ARGV[2] feed message published when the entry was removed
      ARGV[3] CODE
      ARGV[4] the value seen
      ARGV[5] the chat user id in that value

    Output:
      1 when removed, 0 when the entry changed or vanished meanwhile
]]
if redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[4] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('HDEL', KEYS[4], ARGV[3])
if redis.call('HGET', KEYS[2], ARGV[5]) == ARGV[3] then redis.call('HDEL', KEYS[2], ARGV[5]) end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
