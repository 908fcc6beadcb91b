--[[
  Repairs one {p}:holders entry against {p}:codes (reconciler): sets it to the code MySQL says the user holds while
  that code's copy is live and belongs to the user (a rotation that revoked it since the MySQL read wins), or, when
  MySQL says the user holds none, removes an entry whose code's copy is missing, revoked or another user's.

    Input:
      KEYS[1] codes hash, {p}:codes
      KEYS[2] holders hash, {p}:holders

      ARGV[1] chat user id
      ARGV[2] the CODE MySQL says the user holds, or '' for none

    Output:
      1 when the entry changed, 0 otherwise
]]
local function live_of_user(code)
  local value = redis.call('HGET', KEYS[1], code)
  if not value then return false end
  local state, user = string.match(value, '^([^|]*)|[^|]*|([^|]*)|')
  return state ~= nil and state ~= 'revoked' and user == ARGV[1]
end

local current = redis.call('HGET', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then
  if current == ARGV[2] or not live_of_user(ARGV[2]) then return 0 end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
if not current or live_of_user(current) then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
