-- log: a moderation event with a player and a code, and the errors a developer can make.
local Harness = require("harness")

Harness.run(function()
  local link = Harness.link()
  local player = { Name = Harness.env("USERNAME"), UserId = tonumber(Harness.env("USER_ID")) }
  local out = {}
  out.moderation = link:log("moderation", { event_type = "kick", description = "Exploiting; {speed} \"hacks\"", player = player, issued_by = "ModBob", code = Harness.env("CODE") })
  out.join = link:log("ingame", { event_type = "player_join", description = "joined", player = player })
  out.badCategory = link:log("chat", { event_type = "x", description = "y" })
  out.missingDescription = link:log("server", { event_type = "boot" })
  out.badCode = link:log("moderation", { event_type = "kick", description = "x", code = "ab12" })
  out.badKey = Harness.link({ apiKey = "pl_notakey_000" }):log("server", { event_type = "boot", description = "up" })
  Harness.emit(out)
end)
