-- logs-redis: the service's Redis is down when the batch comes (503, Retry-After): the batch waits and goes again
-- under the same key. Once the service has answered 503, the script asks the test (CONTROL_URL) to start Redis again,
-- and waits for the batch to be stored.
local Harness = require("harness")

local TAG = Harness.env("TAG")

Harness.run(function()
  local http = Harness.httpService()
  local link = Harness.link({ httpService = http })
  for i = 1, 12 do
    assert(link:log(i % 2 == 0 and "moderation" or "ingame", { event_type = "redis", description = TAG .. " " .. i }).queued)
  end
  Harness.waitFor("a 503", function()
    local err = link:logStats().lastError
    return err ~= nil and err.httpStatus == 503
  end, 30)
  local during = link:logStats()
  assert(Harness.post(Harness.env("CONTROL_URL") .. "/redis/start", {}) == 200, "the test did not start Redis")
  Harness.waitFor("the batches to be stored", function()
    return link:logStats().sent == 12
  end, 90)
  Harness.emit({ during = during, stats = link:logStats(), requests = Harness.logRequests(http.requests) })
end)
