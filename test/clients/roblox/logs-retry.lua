-- logs-retry: no answer. First the service cannot be reached at all (connections refused) for the first two tries:
-- the batch goes again after a back-off, under the same Idempotency-Key. Then the service receives a batch and stores
-- it, but its answer is lost on the way back: the retry under the same key is answered 200 and stores nothing twice.
local Harness = require("harness")

local TAG = Harness.env("TAG")

local function logSome(link, name, count)
  for i = 1, count do
    assert(link:log("server", { event_type = "retry", description = TAG .. " " .. name .. " " .. i }).queued)
  end
end

Harness.run(function()
  local out = {}
  local refusals = 0
  local http = Harness.httpService(nil, { sourceAddress = "127.0.0.8" })
  http.refuse = function()
    if refusals < 2 then
      refusals = refusals + 1
      return true
    end
    return false
  end
  local link = Harness.link({ httpService = http })
  logSome(link, "refused", 5)
  Harness.waitFor("the refused batch to get through", function()
    return link:logStats().sent == 5
  end, 30)
  out.refused = { stats = link:logStats(), requests = Harness.logRequests(http.requests) }

  local lost = 0
  local lossy = Harness.httpService(nil, { sourceAddress = "127.0.0.8" })
  lossy.loseAnswer = function()
    lost = lost + 1
    return lost == 1
  end
  local second = Harness.link({ httpService = lossy })
  logSome(second, "lost", 7)
  Harness.waitFor("the batch whose answer was lost to be confirmed", function()
    return second:logStats().sent == 7
  end, 30)
  out.lost = { stats = second:logStats(), requests = Harness.logRequests(lossy.requests) }
  Harness.emit(out)
end)
