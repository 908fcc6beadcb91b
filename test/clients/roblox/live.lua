-- live: watch in a live server (RunService:IsStudio() false) never opens a stream, even with one configured and
-- the engine offering CreateWebStreamClient. Without push (UNIVERSE_ID without a push target, or none) it polls every
-- pollInterval and delivers a presence change made in the sandbox.
local Harness = require("harness")

Harness.run(function()
  local universe = Engine.env("UNIVERSE_ID")
  local link, http = Harness.link({ studio = false, stream = Harness.env("STREAM"), pollInterval = 0.2, universeId = universe and tonumber(universe) or nil })
  local code = Harness.env("CODE")
  local seen, errors = {}, {}
  local watcher = link:watch({}, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  watcher:add(code)
  Harness.waitFor("the first block", function()
    return Harness.lastBlock(seen, code) ~= nil
  end)
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Stardew Valley" } } })
  Harness.waitFor("the change to Stardew Valley", function()
    local b = Harness.lastBlock(seen, code)
    return b ~= nil and b.activities ~= nil and #b.activities > 0 and b.activities[1].lines[2] == "Stardew Valley"
  end)
  local mode = watcher.mode
  watcher:stop()
  local streams, pushes, gets = {}, {}, 0
  for i = 1, #http.requests do
    local r = http.requests[i]
    if r.method == "STREAM" then
      table.insert(streams, r.url)
    elseif r.method == "POST" then
      table.insert(pushes, r.url)
    else
      gets = gets + 1
    end
  end
  Harness.emit({ mode = mode, streams = streams, pushes = pushes, gets = gets, errors = errors, last = Harness.lastBlock(seen, code) })
end)
