-- latency: for CHANGES presence changes made in the sandbox, the time from the change (the control API's POST) to
-- onBlock, for two watchers of the same code at once: a live server's (push through the fake Open Cloud, polling an
-- hour apart) and, as the baseline measured in the same run, Studio's over the service's SSE stream. Each change waits
-- for both deliveries and then GAP seconds (longer than the publisher's window), so no two changes coalesce. The
-- stand-in TextService answers at once, and its MessagingService reads the fake every 50 ms (both add to the figures).
local Harness = require("harness")

Harness.run(function()
  local code = Harness.env("CODE")
  local universe = tonumber(Harness.env("UNIVERSE_ID"))
  local changes = tonumber(Harness.env("CHANGES"))
  local gap = tonumber(Engine.env("GAP") or "1.2")
  local players = Harness.players(Harness.playersFromEnv())
  local text = Harness.textService({ players = players, delay = 0 })
  local live = Harness.link({ studio = false, universeId = universe, players = players, textService = text, pollInterval = 3600, reconcileInterval = 3600 })
  local studio = Harness.link({ stream = "sse", players = players, textService = text, pollInterval = 3600, streamRetrySeconds = 3600 })
  local arrived = { push = {}, stream = {} }
  local function watcherFor(link, kind)
    return link:watch({ code }, function(block)
      if block.activities ~= nil and #block.activities > 0 then
        arrived[kind][block.activities[1].lines[2]] = Harness.clock()
      end
    end)
  end
  local push = watcherFor(live, "push")
  local stream = watcherFor(studio, "stream")
  Harness.waitFor("both watchers in their modes", function()
    return push.mode == "push" and stream.mode == "stream"
  end)
  local out = { push = {}, stream = {}, lost = 0 }
  for i = 1, changes do
    local game = string.format("Latency Game %03d", i)
    local started = Harness.clock()
    Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = game } } })
    local deadline = started + 10
    while (arrived.push[game] == nil or arrived.stream[game] == nil) and Harness.clock() < deadline do
      Harness.sleep(0.005)
    end
    if arrived.push[game] == nil or arrived.stream[game] == nil then
      out.lost = out.lost + 1
    else
      table.insert(out.push, arrived.push[game] - started)
      table.insert(out.stream, arrived.stream[game] - started)
    end
    Harness.sleep(gap)
  end
  push:stop()
  stream:stop()
  Harness.emit(out)
end)
