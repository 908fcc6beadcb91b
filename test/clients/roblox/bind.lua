-- bind: what a player typed, through normalization, to the real bind endpoint; every outcome the player can meet.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link()
  local player = { Name = Harness.env("USERNAME"), UserId = tonumber(Harness.env("USER_ID")) }
  local other = { Name = "Other_Player", UserId = 777001 }
  local code = Harness.env("CODE")
  local out = {}
  out.typedLower = link:bind(player, "  " .. string.lower(string.sub(code, 1, 2)) .. "-" .. string.lower(string.sub(code, 3)) .. " ")
  out.again = link:bind(player, code)
  local before = #http.requests
  out.notACode = link:bind(player, "K7Q")
  out.notACodeSent = #http.requests - before
  out.unknown = link:bind(player, Harness.env("UNKNOWN_CODE"))
  before = #http.requests
  out.oldCode = link:bind(player, Harness.env("OLD_CODE_TYPED"))
  out.oldCodeTried = {}
  for i = before + 1, #http.requests do
    table.insert(out.oldCodeTried, http.requests[i].url)
  end
  out.banned = link:bind(player, Harness.env("BANNED_CODE"))
  local contested = Harness.env("CONTESTED_CODE")
  out.contestedFirst = link:bind(player, contested)
  out.conflict = link:bind(other, contested)
  out.afterConflict = link:bind(player, contested)
  local stringKey = Harness.link({ apiKey = Harness.env("API_KEY") })
  out.stringKey = stringKey:bind(player, Harness.env("OLD_CODE_TYPED"))
  local badKey = Harness.link({ apiKey = Harness.secret("pl_notakey_000") })
  out.badKey = badKey:bind(player, code)
  out.authorizationSeen = http.requests[1].authorization
  Harness.emit(out)
end)
