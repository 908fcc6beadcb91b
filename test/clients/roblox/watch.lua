-- watch: the stream is tried first (the stand-in's SSE client), falls back to polling when the service refuses it
-- (the test holds the one stream it allows), re-reads as players join and leave, and delivers a presence change
-- made in the sandbox.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link({ pollInterval = 0.1, streamRetrySeconds = 3600 })
  local code = Harness.env("CODE")
  local second = Harness.env("SECOND_CODE")
  local seen = {}
  local errors = {}
  local waitFor = Harness.waitFor
  local function last(c)
    return Harness.lastBlock(seen, c)
  end
  local watcher = link:watch({ code }, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  waitFor("the first block", function()
    return last(code) ~= nil
  end)
  local first = last(code)
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Terraria" } } })
  waitFor("the change to Terraria", function()
    local b = last(code)
    return b ~= nil and b.activities ~= nil and #b.activities > 0 and b.activities[1].lines[2] == "Terraria"
  end)
  local changed = last(code)
  local countBefore = #seen
  Harness.sleep(0.4)
  local repeats = #seen - countBefore
  watcher:add(second)
  waitFor("the added code's block", function()
    return last(second) ~= nil
  end)
  watcher:remove(code)
  Harness.sleep(0.3)
  local lastUrl = nil
  for i = #http.requests, 1, -1 do
    if http.requests[i].method == "GET" then
      lastUrl = http.requests[i].url
      break
    end
  end
  watcher:stop()
  local streams = {}
  for i = 1, #http.requests do
    if http.requests[i].method == "STREAM" then
      table.insert(streams, http.requests[i].url)
    end
  end
  Harness.emit({ first = first, changed = changed, repeats = repeats, second = last(second), mode = watcher.mode, errors = errors, streams = streams, lastPollUrl = lastUrl })
end)
