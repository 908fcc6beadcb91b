--[[
  Writes presences into {p}:presence, each only while its code's share setting is still the one the gateway filtered
  it under: a presence change read before a `/share` change must not write activities the new setting hides (the
  refresh that follows the change writes the entry again). The written codes are announced on the change feed.

    Input:
      KEYS[1] presence hash, {p}:presence (field = CODE, value = presence/model/presence-entry.ts encoding)
      KEYS[2] share hash, {p}:share (field = CODE, value = share setting; absent = `everything`)

      ARGV[1] change feed channel, {p}:feed
      ARGV[2] the writer's clock, epoch ms (the feed message's MS)
      ARGV[3..] groups of three per entry: CODE, share setting it was filtered under, encoded entry

    Output:
      the number of entries written
]]
local written = {}
for i = 3, #ARGV, 3 do
  local code, share, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if (redis.call('HGET', KEYS[2], code) or 'everything') == share then
    redis.call('HSET', KEYS[1], code, entry)
    written[#written + 1] = code
  end
end
if #written > 0 then redis.call('PUBLISH', ARGV[1], ARGV[2] .. '|' .. table.concat(written, ',')) end
return #written
