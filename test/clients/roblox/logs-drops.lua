-- logs-drops: a full queue drops the lowest category first. A queue of 10 events is filled in one go (the flusher
-- cannot send before the script yields), then flushed: what was dropped, counted by category, and what was sent.
--   6 ingame + 4 server        full (10)
--   5 moderation               each takes the place of the newest waiting ingame (1 ingame left)
--   3 server                   the first takes the last ingame's place; the other two find only server and
--                              moderation: dropped themselves (queue_full)
--   2 moderation               each takes the place of the newest waiting server
--   1 ingame                   dropped itself
-- Left: server 1-3, moderation 1-7; dropped: ingame 7 (6 + 1), server 4 (2 + 2 evicted).
local Harness = require("harness")

local TAG = Harness.env("TAG")

Harness.run(function()
  local link = Harness.link({ httpService = Harness.httpService(nil, { sourceAddress = "127.0.0.4" }), logQueueSize = 10 })
  local calls = {}
  local counts = {}
  local function log(category, n)
    for _ = 1, n do
      counts[category] = (counts[category] or 0) + 1
      local result = link:log(category, { event_type = "drops", description = TAG .. " " .. category .. " " .. counts[category] })
      table.insert(calls, { category = category, n = counts[category], queued = result.queued, errorCode = result.errorCode, status = result.status })
    end
  end
  log("ingame", 6)
  log("server", 4)
  log("moderation", 5)
  log("server", 3)
  log("moderation", 2)
  log("ingame", 1)
  local before = link:logStats()
  local flushed = link:flushLogs(20)
  Harness.emit({ calls = calls, before = before, flushed = flushed, after = link:logStats() })
end)
