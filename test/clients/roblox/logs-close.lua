-- logs-close: game:BindToClose sends what is queued, highest category first. Nothing is sent before (a 60 s flush
-- interval, and no category holds a full batch), then the server closes: moderation, server, ingame go in that
-- order, with the events logged while closing (PlayerRemoving handlers log as the server shuts down).
-- Then a server whose service cannot be reached: the close gives up after logCloseSeconds, counting what was left as
-- dropped (shutdown), and log() queues nothing more.
local Harness = require("harness")

local TAG = Harness.env("TAG")

local function fill(link, name, counts)
  for _, category in ipairs({ "ingame", "server", "moderation" }) do
    for i = 1, counts[category] do
      assert(link:log(category, { event_type = "close", description = TAG .. " " .. name .. " " .. category .. " " .. i }).queued)
    end
  end
end

Harness.run(function()
  local out = {}
  local game = Harness.dataModel()
  local http = Harness.httpService(nil, { sourceAddress = "127.0.0.5" })
  local link = Harness.link({ httpService = http, game = game, logFlushInterval = 60 })
  out.bound = #game.bound
  fill(link, "open", { ingame = 90, server = 60, moderation = 30 })
  out.sentBefore = #http.requests
  -- While the server closes, players leave and their leaving is logged.
  Harness.spawn(function()
    Harness.sleep(0.05)
    for i = 1, 5 do
      link:log("ingame", { event_type = "player_leave", description = TAG .. " open leaving " .. i })
    end
  end)
  out.close = game:close()
  out.stats = link:logStats()
  out.requests = Harness.logRequests(http.requests)
  out.afterClose = link:log("server", { event_type = "late", description = TAG .. " open too late" })

  local unreachableGame = Harness.dataModel()
  local downHttp = Harness.httpService(nil, { sourceAddress = "127.0.0.5" })
  downHttp.refuse = function()
    return true
  end
  local down = Harness.link({ httpService = downHttp, game = unreachableGame, logFlushInterval = 60, logCloseSeconds = 2 })
  fill(down, "down", { ingame = 3, server = 2, moderation = 1 })
  out.down = { close = unreachableGame:close(), stats = down:logStats(), requests = Harness.logRequests(downHttp.requests) }
  Harness.emit(out)
end)
