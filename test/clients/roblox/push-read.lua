-- push-read: a pushed message that names codes without their blocks (they did not fit in 1 kB) makes watch read
-- those codes itself (GET callbacks), and only its own: polling is allowed here, the poll and reconcile intervals are
-- an hour, and the presence change made in the sandbox is one whose block is over 1 kB (ACTIVITIES: how many
-- listening activities with 100-character lines; the service shows five at most).
local Harness = require("harness")

Harness.run(function()
  local code = Harness.env("CODE")
  local universe = tonumber(Harness.env("UNIVERSE_ID"))
  local link, http = Harness.link({ studio = false, universeId = universe, pollInterval = 3600, reconcileInterval = 3600 })
  local seen, errors = {}, {}
  local watcher = link:watch({ code }, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  Harness.waitFor("the first block", function()
    return Harness.lastBlock(seen, code) ~= nil
  end)
  local readsBefore = 0
  for i = 1, #http.requests do
    if http.requests[i].method == "GET" then
      readsBefore = readsBefore + 1
    end
  end
  local activities = {}
  for i = 1, tonumber(Harness.env("ACTIVITIES")) do
    table.insert(activities, { type = 2, name = "Music " .. i, details = string.rep("d", 100), state = string.rep("s", 100) })
  end
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = activities })
  Harness.waitFor("the big block", function()
    local b = Harness.lastBlock(seen, code)
    return b ~= nil and b.activities ~= nil and #b.activities > 1
  end)
  local reads = {}
  for i = 1, #http.requests do
    if http.requests[i].method == "GET" then
      table.insert(reads, http.requests[i].url)
    end
  end
  local mode = watcher.mode
  watcher:stop()
  Harness.emit({ readsBefore = readsBefore, reads = reads, last = Harness.lastBlock(seen, code), mode = mode, errors = errors })
end)
