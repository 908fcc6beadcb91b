-- push-renew: a live watch renews its declaration with every reconcile poll (reconcileInterval 1 s here, polling
-- allowed) for RUN_SECONDS; with SUBSCRIBE_FAILS=1 the stand-in MessagingService refuses the subscription, so nothing
-- is declared and watch polls every pollInterval (1 s), saying why.
local Harness = require("harness")

Harness.run(function()
  local code = Harness.env("CODE")
  local universe = tonumber(Harness.env("UNIVERSE_ID"))
  local messaging = Harness.messagingService({ universeId = universe })
  messaging.fail = Engine.env("SUBSCRIBE_FAILS") == "1"
  local link, http = Harness.link({ studio = false, universeId = universe, messagingService = messaging, reconcileInterval = 1, pollInterval = 1, streamRetrySeconds = 3600 })
  local seen, errors = {}, {}
  local watcher = link:watch({ code }, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  Harness.sleep(tonumber(Harness.env("RUN_SECONDS")))
  local mode = watcher.mode
  watcher:stop()
  local declarations, reads = {}, 0
  for i = 1, #http.requests do
    local r = http.requests[i]
    if r.method == "POST" then
      table.insert(declarations, Harness.json.decode(r.body).codes)
    elseif r.method == "GET" then
      reads = reads + 1
    end
  end
  Harness.emit({ mode = mode, declarations = declarations, reads = reads, errors = errors, delivered = #seen })
end)
