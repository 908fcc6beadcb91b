-- logs-burst: a burst of 5,000 events from one game server, against the service's log limits with their minute
-- shortened to WINDOW seconds (the stack's RATE_LIMITS log=30/WINDOW,log_events=3000/WINDOW; the module's
-- windowSeconds), so the pacing of minutes runs in seconds. `small`: the default queue (2,000 events), all ingame:
-- the first 2,000 are queued and sent, the rest dropped and counted. `big`, from another server address (limits of
-- its own): a queue of 5,000 and the three categories: every event sent, inside both limits.
local Harness = require("harness")

local WINDOW = tonumber(Harness.env("WINDOW"))
local TAG = Harness.env("TAG")
local CATEGORIES = { "ingame", "server", "moderation" }

local function burst(link, name, categoryOf)
  local calls = { queued = 0, dropped = 0, firstDropped = nil, dropCodes = {} }
  for i = 1, 5000 do
    local result = link:log(categoryOf(i), { event_type = "burst", description = TAG .. " " .. name .. " " .. i })
    if result.queued then
      calls.queued = calls.queued + 1
    else
      calls.dropped = calls.dropped + 1
      calls.firstDropped = calls.firstDropped or i
      calls.dropCodes[result.errorCode] = (calls.dropCodes[result.errorCode] or 0) + 1
    end
  end
  return calls
end

local function run(name, sourceAddress, options, categoryOf)
  local http = Harness.httpService(nil, { sourceAddress = sourceAddress })
  options.httpService = http
  options.windowSeconds = WINDOW
  local link = Harness.link(options)
  local started = Harness.clock()
  local out = { calls = burst(link, name, categoryOf) }
  out.returnedIn = Harness.clock() - started
  Harness.waitFor("the " .. name .. " queue to drain", function()
    return link:logStats().queuedTotal == 0
  end, 150)
  out.drainedIn = Harness.clock() - started
  out.stats = link:logStats()
  out.requests = Harness.logRequests(http.requests)
  return out
end

Harness.run(function()
  local out = {}
  out.small = run("small", "127.0.0.2", {}, function()
    return "ingame"
  end)
  out.big = run("big", "127.0.0.3", { logQueueSize = 5000 }, function(i)
    return CATEGORIES[i % 3 + 1]
  end)
  Harness.emit(out)
end)
