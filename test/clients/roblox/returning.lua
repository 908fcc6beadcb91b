-- returning: codeFor finds a returning player's code by their Roblox user id (GET /players/{id}): the bound one; a
-- paused one when that is all they have; nothing (with the list) for a player with only a banned code or none; an
-- error for something that is no player. The code's text is then filtered from that player without a username.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link()
  local out = {}
  local code, result = link:codeFor({ Name = Harness.env("USERNAME"), UserId = tonumber(Harness.env("USER_ID")) })
  local request = http.requests[#http.requests]
  out.returning = { code = code, result = result, url = request.url, authorization = request.authorization }
  out.rpc = link:pollRpc({ code })
  code, result = link:codeFor(tonumber(Harness.env("PAUSED_ID")))
  out.paused = { code = code, result = result }
  code, result = link:codeFor(tonumber(Harness.env("BANNED_ID")))
  out.banned = { code = code, result = result }
  code, result = link:codeFor(tonumber(Harness.env("UNKNOWN_ID")))
  out.unknown = { code = code, result = result }
  local before = #http.requests
  code, result = link:codeFor("Builderman")
  out.notAPlayer = { code = code, result = result, sent = #http.requests - before }
  code, result = Harness.link({ apiKey = "pl_notakey_000" }):codeFor(4242)
  out.badKey = { code = code, result = result }
  Harness.emit(out)
end)
