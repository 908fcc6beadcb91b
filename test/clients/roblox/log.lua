-- log: a moderation event with a player and a code, and a join, queued and sent; a category that does not exist is
-- refused at once.
local Harness = require("harness")

Harness.run(function()
  local link = Harness.link()
  local player = { Name = Harness.env("USERNAME"), UserId = tonumber(Harness.env("USER_ID")) }
  local out = {}
  out.moderation = link:log("moderation", { event_type = "kick", description = "Exploiting; {speed} \"hacks\"", player = player, issued_by = "ModBob", code = Harness.env("CODE") })
  out.join = link:log("ingame", { event_type = "player_join", description = "joined", player = player })
  out.badCategory = link:log("chat", { event_type = "x", description = "y" })
  out.flushed = link:flushLogs(20)
  out.stats = link:logStats()
  Harness.emit(out)
end)
