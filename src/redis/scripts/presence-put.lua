--[[
  Writes presences into {p}:presence, each only while its code's share setting is still the one the gateway filtered
  it under: a presence change read before a `/share` change must not write activities the new setting hides (the
  refresh that follows the change writes the entry again). Nor is anything written for a code whose record is a revoked
  tombstone (a presence read before `/forget` or `/unlink` must not outlive the code). The written codes are
  announced on the change feed.

    Input:
      KEYS[1] presence hash, {p}:presence (field = CODE, value = presence/model/presence-entry.ts encoding)
      KEYS[2] share hash, {p}:share (field = CODE, value = share setting; absent = `everything`)
      KEYS[3] codes hash, {p}:codes (field = CODE, value = code record, state first)

      ARGV[1] change feed channel, {p}:feed
      ARGV[2] the writer's clock, epoch ms (the feed message's MS)
      ARGV[3..] groups of three per entry: CODE, share setting it was filtered under, encoded entry

    Output:
      the number of entries written
]]
local written = {}
for i = 3, #ARGV, 3 do
  local code, share, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local record = redis.call('HGET', KEYS[3], code)
  if not (record and string.sub(record, 1, 8) == 'revoked|') and (redis.call('HGET', KEYS[2], code) or 'everything') == share then
    redis.call('HSET', KEYS[1], code, entry)
    written[#written + 1] = code
  end
end
if #written > 0 then redis.call('PUBLISH', ARGV[1], ARGV[2] .. '|' .. table.concat(written, ',')) end
return #written
