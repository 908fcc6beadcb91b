-- push-renew: a live watch renews its declaration with every reconcile poll (reconcileInterval 1 s here, polling
-- allowed) until it has made ROUNDS of them, each with its poll (at most 30 s); with SUBSCRIBE_FAILS=1 the stand-in MessagingService
-- refuses the subscription, so nothing is declared and watch polls every pollInterval (1 s), saying why, until it
-- has polled ROUNDS times. The times of the declarations and reads say how far apart the rounds went.
local Harness = require("harness")

Harness.run(function()
  local code = Harness.env("CODE")
  local universe = tonumber(Harness.env("UNIVERSE_ID"))
  local rounds = tonumber(Harness.env("ROUNDS"))
  local failing = Engine.env("SUBSCRIBE_FAILS") == "1"
  local messaging = Harness.messagingService({ universeId = universe })
  messaging.fail = failing
  local link, http = Harness.link({ studio = false, universeId = universe, messagingService = messaging, reconcileInterval = 1, pollInterval = 1, streamRetrySeconds = 3600 })
  local seen, errors = {}, {}
  local watcher = link:watch({ code }, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  local function count(method)
    local n = 0
    for _, r in http.requests do
      if r.method == method then
        n += 1
      end
    end
    return n
  end
  -- A round declares, then polls: both counted, so the last round's poll is in.
  Harness.waitFor(rounds .. " rounds", function()
    return count("GET") >= rounds and (failing or count("POST") >= rounds)
  end, 30)
  local mode = watcher.mode
  watcher:stop()
  local declarations, declaredAt, reads, readAt = {}, {}, 0, {}
  for _, r in http.requests do
    if r.method == "POST" then
      table.insert(declarations, Harness.json.decode(r.body).codes)
      table.insert(declaredAt, r.at)
    elseif r.method == "GET" then
      reads += 1
      table.insert(readAt, r.at)
    end
  end
  Harness.emit({ mode = mode, declarations = declarations, declaredAt = declaredAt, reads = reads, readAt = readAt, errors = errors, delivered = #seen })
end)
