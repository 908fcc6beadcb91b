--[[
  Takes erased codes out of one universe's push subscriptions and its record of sent blocks (a chat user's erasure):
  each server's subscription keeps its other codes (one left with none is removed), so no block of an erased code is
  published there again unless a server subscribes it anew (it then gets "Code not found").

    Input:
      KEYS[1] the universe's subscriptions, {p}:push:subs:{universe} (hash: field KEYID|SERVERID, value EXPIRESMS|CODE,...)
      KEYS[2] the universe's sent blocks, {p}:push:sent:{universe} (hash: field CODE)

      ARGV[1] an erased CODE; ARGV[2..] the others (at least one in all)

    Output:
      the number of subscriptions that named one of them
]]
local erased = {}
for i = 1, #ARGV do erased[ARGV[i]] = true end
local all = redis.call('HGETALL', KEYS[1])
local changed = 0
for i = 1, #all, 2 do
  local value = all[i + 1]
  local bar = string.find(value, '|', 1, true)
  if bar then
    local kept = {}
    local hit = false
    for code in string.gmatch(string.sub(value, bar + 1), '[^,]+') do
      if erased[code] then hit = true else kept[#kept + 1] = code end
    end
    if hit then
      changed = changed + 1
      if #kept == 0 then
        redis.call('HDEL', KEYS[1], all[i])
      else
        redis.call('HSET', KEYS[1], all[i], string.sub(value, 1, bar) .. table.concat(kept, ','))
      end
    end
  end
end
redis.call('HDEL', KEYS[2], unpack(ARGV))
return changed
