-- filter: every text handed to game code went through the stand-in TextService (FilterStringAsync from the linked
-- player, then GetNonChatStringForBroadcastAsync), under watch and poll; cached per (text, player) within a bound; at
-- most filterConcurrency calls at once; a failing filter hides the text and pauses; a player not in the server gets
-- hidden text without a call; rawText gives the service's text as it is. CODE is linked to PLAYER_ID, SECOND_CODE to
-- SECOND_PLAYER_ID; both players are in PLAYERS (the server) unless a case removes one.
local Harness = require("harness")

local function count(list, value)
  local n = 0
  for i = 1, #list do
    if list[i] == value then
      n = n + 1
    end
  end
  return n
end

-- The pairs (text, fromUserId) the stand-in was asked, as "id:text".
local function asked(service)
  local out = {}
  for i = 1, #service.texts do
    table.insert(out, string.format("%.0f", service.fromUserIds[i]) .. ":" .. service.texts[i])
  end
  return out
end

Harness.run(function()
  local code = Harness.env("CODE")
  local second = Harness.env("SECOND_CODE")
  local playerId = tonumber(Harness.env("PLAYER_ID"))
  local secondId = tonumber(Harness.env("SECOND_PLAYER_ID"))
  local out = {}

  -- watch: both blocks, filtered, with at most two filter calls at once.
  local players = Harness.players(Harness.playersFromEnv())
  local text = Harness.textService({ players = players, delay = 0.05 })
  local link = Harness.link({ players = players, textService = text, filterConcurrency = 2, pollInterval = 3600, stream = false })
  local seen = {}
  local errors = {}
  local watcher = link:watch({}, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  watcher:add(code, players:GetPlayerByUserId(playerId))
  watcher:add(second, secondId)
  Harness.waitFor("both blocks", function()
    return Harness.lastBlock(seen, code) ~= nil and Harness.lastBlock(seen, second) ~= nil
  end)
  watcher:stop()
  out.watch = { seen = seen, errors = errors, asked = asked(text), maxInFlight = text.maxInFlight }

  -- poll on the same link: every text is known, so nothing is asked again.
  local callsBefore = text.calls
  out.poll = { blocks = link:poll({ code, second }), rpc = link:pollRpc({ code }), calls = text.calls - callsBefore }

  -- A cache of two texts: the second poll asks again.
  local small = Harness.textService({ players = players, delay = 0 })
  local smallLink = Harness.link({ players = players, textService = small, filterCacheSize = 2 })
  smallLink:poll({ code })
  local first = small.calls
  smallLink:poll({ code })
  out.smallCache = { first = first, second = small.calls - first }

  -- The filter fails: hidden, never raw; the next poll within the pause asks nothing; after it, text shows again.
  for _, mode in ipairs({ "filter", "result" }) do
    local failing = Harness.textService({ players = players, delay = 0 })
    failing.fail = mode
    local failingLink = Harness.link({ players = players, textService = failing, filterConcurrency = 1 })
    local hidden = failingLink:poll({ code })
    local callsAfterFailure = failing.calls
    local paused = failingLink:poll({ code })
    local callsWhilePaused = failing.calls - callsAfterFailure
    failing.fail = nil
    Harness.sleep(1.1)
    local recovered = failingLink:poll({ code })
    out[mode .. "Fails"] = { hidden = hidden, callsAfterFailure = callsAfterFailure, paused = paused, callsWhilePaused = callsWhilePaused, recovered = recovered }
  end

  -- The second player left the server: their text is hidden without asking, and watch says so once.
  local fewer = Harness.players(Harness.playersFromEnv())
  fewer:leave(secondId)
  local lonely = Harness.textService({ players = fewer, delay = 0 })
  local lonelyLink = Harness.link({ players = fewer, textService = lonely, pollInterval = 0.2, stream = false })
  local lonelySeen, lonelyErrors = {}, {}
  local lonelyWatcher = lonelyLink:watch({}, function(block)
    table.insert(lonelySeen, block)
  end, { onError = function(err)
    table.insert(lonelyErrors, err)
  end })
  lonelyWatcher:add(second, secondId)
  Harness.waitFor("the block of the player who left", function()
    return Harness.lastBlock(lonelySeen, second) ~= nil
  end)
  Harness.sleep(0.5)
  lonelyWatcher:stop()
  out.notInServer = { block = Harness.lastBlock(lonelySeen, second), errors = lonelyErrors, asked = lonely.calls, deliveries = #lonelySeen }

  -- rawText: the service's text as it is, nothing asked.
  local rawService = Harness.textService({ players = players, delay = 0 })
  local raw = Harness.link({ players = players, textService = rawService, rawText = true })
  out.raw = { blocks = raw:poll({ code, second }), calls = rawService.calls }
  out.counts = { askedFromPlayer = count(text.fromUserIds, playerId), askedFromSecond = count(text.fromUserIds, secondId) }
  Harness.emit(out)
end)
