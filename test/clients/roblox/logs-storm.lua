-- logs-storm: the module's budgets are far above what the service allows here (its RATE_LIMITS are small: log=5 and
-- log_events=250 per WINDOW seconds, and the module believes in 28 and 2,800): a storm of 429s, both budgets.
-- Every event must still be stored once: each 429 is honoured (Retry-After) and its batch sent again under the same
-- Idempotency-Key. Events are logged in three waves, the last while the queue is busy retrying.
local Harness = require("harness")

local WINDOW = tonumber(Harness.env("WINDOW"))
local TAG = Harness.env("TAG")
local CATEGORIES = { "ingame", "server", "moderation" }

Harness.run(function()
  local http = Harness.httpService(nil, { sourceAddress = "127.0.0.7" })
  local link = Harness.link({ httpService = http, windowSeconds = WINDOW })
  local n = 0
  local function wave(count)
    for _ = 1, count do
      n = n + 1
      assert(link:log(CATEGORIES[n % 3 + 1], { event_type = "storm", description = TAG .. " " .. n }).queued)
    end
  end
  wave(250)
  Harness.sleep(1)
  wave(200)
  Harness.waitFor("a 429", function()
    return link:logStats().rateLimited > 0
  end, 30)
  wave(150)
  Harness.waitFor("the queue to drain", function()
    return link:logStats().queuedTotal == 0
  end, 100)
  Harness.emit({ logged = n, stats = link:logStats(), requests = Harness.logRequests(http.requests) })
end)
