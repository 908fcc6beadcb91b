-- logs-413: the service's whole events budget is smaller than a batch (RATE_LIMITS log_events=30 per WINDOW seconds):
-- the first batch of 70 gets 413 batch_too_large with max_events 30. It becomes batches of 30, 30 and 10 under new
-- keys (nothing of the refused batch was stored), and the module keeps to 30 events a window from then on.
local Harness = require("harness")

local WINDOW = tonumber(Harness.env("WINDOW"))
local TAG = Harness.env("TAG")

Harness.run(function()
  local http = Harness.httpService()
  local link = Harness.link({ httpService = http, windowSeconds = WINDOW })
  for i = 1, 70 do
    assert(link:log("moderation", { event_type = "split", description = TAG .. " " .. i }).queued)
  end
  local flushed = link:flushLogs(60)
  Harness.emit({ flushed = flushed, stats = link:logStats(), requests = Harness.logRequests(http.requests) })
end)
