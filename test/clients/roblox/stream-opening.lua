-- stream-opening: a player joins while watch's WebSocket is still opening (the code is added right after the client
-- is created, before the upgrade is answered): the code is subscribed once the socket opens, and its block and its
-- next change arrive through the WebSocket. Polling is made impossible as in stream.lua.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link({ pollInterval = 3600, streamRetrySeconds = 3600, stream = "websocket" })
  local code = Harness.env("CODE")
  local second = Harness.env("SECOND_CODE")
  local seen = {}
  local watcher
  local create = http.CreateWebStreamClient
  http.CreateWebStreamClient = function(self, kind, options)
    local client = create(self, kind, options)
    watcher:add(second)
    return client
  end
  watcher = link:watch({ code }, function(block)
    seen[block.code] = block
  end)
  local deadline = Harness.clock() + 10
  while (seen[code] == nil or seen[second] == nil) and Harness.clock() < deadline do
    Harness.sleep(0.05)
  end
  local joined = seen[second]
  -- Its next change comes through the socket too (on a socket that never subscribed it, it would never come).
  Harness.control("presence", { user_id = Harness.env("SECOND_USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Factorio" } } })
  deadline = Harness.clock() + 10
  local function playing()
    local b = seen[second]
    return b ~= nil and b.activities ~= nil and #b.activities > 0 and b.activities[1].lines[2] == "Factorio"
  end
  while not playing() and Harness.clock() < deadline do
    Harness.sleep(0.05)
  end
  watcher:stop()
  local sent, polled = {}, 0
  for i = 1, #http.requests do
    if http.requests[i].method == "SEND" then
      table.insert(sent, http.requests[i].url)
    elseif http.requests[i].method ~= "STREAM" then
      polled = polled + 1
    end
  end
  Harness.emit({ first = seen[code], second = joined, changed = seen[second], sent = sent, polled = polled })
end)
