-- The governor against the real rate limits (callbacks 3 per 10 s in this stack): RateLimit-Remaining 0 holds the
-- route, a 429's Retry-After holds it, a request that would wait too long is not sent, and the per-minute budget
-- waits (with a recording clock, so no test waits a minute).
local Harness = require("harness")

local function fakeTime()
  local clock = { now = 1000, slept = {} }
  clock.read = function()
    return clock.now
  end
  clock.sleep = function(seconds)
    table.insert(clock.slept, seconds)
    clock.now = clock.now + seconds
  end
  return clock
end

Harness.run(function()
  local out = {}
  local a, httpA = Harness.link({ maxWaitSeconds = 0 })
  out.a = {}
  for i = 1, 4 do
    local blocks, err = a:poll({ "QQQQ" })
    table.insert(out.a, { ok = blocks ~= nil, err = err })
  end
  out.aSent = #httpA.requests

  local b, httpB = Harness.link({ maxWaitSeconds = 0 })
  local _, first = b:poll({ "QQQQ" })
  local _, second = b:poll({ "QQQQ" })
  out.b = { first = first, second = second, sent = #httpB.requests }

  local t = fakeTime()
  local c, httpC = Harness.link({ maxWaitSeconds = 3600, clock = t.read, sleep = t.sleep })
  c:poll({ "QQQQ" })
  local retry = t.now
  c:poll({ "QQQQ" })
  out.c = { slept = t.slept, sent = #httpC.requests, waitedFrom = retry }

  local budget = fakeTime()
  local d, httpD = Harness.link({ requestsPerMinute = 2, maxWaitSeconds = 120, clock = budget.read, sleep = budget.sleep })
  for i = 1, 3 do
    d:pollRpc({ "QQQQ" })
  end
  out.d = { slept = budget.slept, sent = #httpD.requests }
  local e, httpE = Harness.link({ requestsPerMinute = 2, maxWaitSeconds = 10, clock = budget.read, sleep = budget.sleep })
  e:pollRpc({ "QQQQ" })
  e:pollRpc({ "QQQQ" })
  local _, refused = e:pollRpc({ "QQQQ" })
  out.e = { refused = refused, sent = #httpE.requests }
  Harness.emit(out)
end)
