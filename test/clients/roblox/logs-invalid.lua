-- logs-invalid: what the module refuses at once (nothing queued), and events the service refuses: in one batch of
-- eight, four are invalid (no description, a malformed code, a line break in event_type, an empty table, which the
-- engine's JSONEncode writes as []). The service names them (422 invalid_events); they are dropped and reported to
-- onLogDropped, and the four valid ones go again under a new key. Then a key the service refuses (401): the events
-- are kept, not dropped, until the server closes.
local Harness = require("harness")

local TAG = Harness.env("TAG")

Harness.run(function()
  local out = {}
  local reports = {}
  local http = Harness.httpService(nil, { sourceAddress = "127.0.0.6" })
  local link = Harness.link({
    httpService = http,
    onLogDropped = function(report)
      table.insert(reports, report)
    end,
  })
  out.refusedAtOnce = {
    unknownCategory = link:log("chat", { event_type = "x", description = "y" }),
    notATable = link:log("server", "player joined"),
    notJson = link:log("server", { event_type = "x", description = "y", callback = function() end }),
    notFinite = link:log("server", { event_type = "x", description = "y", score = math.huge }),
    tooLarge = link:log("server", { event_type = "x", description = string.rep("x", 70000) }),
  }
  out.statsAtOnce = link:logStats()
  local player = { Name = "Lua_Player", UserId = 4242 }
  local events = {
    { event_type = "kick", description = TAG .. " valid 1", player = player, issued_by = "ModBob", code = Harness.env("CODE") },
    { event_type = "kick" },
    { event_type = "kick", description = TAG .. " bad code", code = "ab12" },
    { event_type = "line\nbreak", description = TAG .. " valid? no: event_type" },
    { event_type = "warn", description = TAG .. " valid 2" },
    {},
    { event_type = "warn", description = TAG .. " valid 3" },
    { event_type = "warn", description = TAG .. " valid 4" },
  }
  out.queued = {}
  for i = 1, #events do
    table.insert(out.queued, link:log("moderation", events[i]).queued)
  end
  out.flushed = link:flushLogs(20)
  Harness.waitFor("the four reports", function()
    return #reports == 4
  end)
  out.reports = reports
  out.stats = link:logStats()
  out.requests = Harness.logRequests(http.requests)

  local badKey = Harness.link({ apiKey = "pl_notakey_000", httpService = Harness.httpService(nil, { sourceAddress = "127.0.0.6" }) })
  badKey:log("server", { event_type = "boot", description = TAG .. " bad key" })
  out.badKey = { flushed = badKey:flushLogs(2), stats = badKey:logStats() }
  out.badKey.closed = badKey:closeLogs(0)
  out.badKey.afterClose = badKey:logStats()
  Harness.emit(out)
end)
