-- stream: watch over the service's real stream (STREAM: "sse" or "websocket"), with polling made impossible (a poll
-- interval and a stream retry far beyond the scenario): the first blocks, a presence change made in the sandbox, and
-- after :add and :remove (SSE reopens its stream with the new list; a WebSocket sends subscribe/unsubscribe) the new
-- code's block and changes, all arrive through the stream.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link({ pollInterval = 3600, streamRetrySeconds = 3600, stream = Harness.env("STREAM") })
  local code = Harness.env("CODE")
  local second = Harness.env("SECOND_CODE")
  local seen = {}
  local errors = {}
  local waitFor = Harness.waitFor
  local function last(c)
    return Harness.lastBlock(seen, c)
  end
  local function playing(c, game)
    local b = last(c)
    return b ~= nil and b.activities ~= nil and #b.activities > 0 and b.activities[1].lines[2] == game
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
  local modeAfterFirst = watcher.mode
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Terraria" } } })
  waitFor("the change of the first code", function()
    return playing(code, "Terraria")
  end)
  local changed = last(code)
  watcher:add(second)
  waitFor("the added code's block", function()
    return last(second) ~= nil
  end)
  local added = last(second)
  local countBeforeRemove = #seen
  watcher:remove(code)
  -- The stream reopened for the remaining code only: a change of the removed code is not delivered, a change of the
  -- remaining one is.
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Celeste" } } })
  Harness.control("presence", { user_id = Harness.env("SECOND_USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Factorio" } } })
  waitFor("the change of the remaining code", function()
    return playing(second, "Factorio")
  end)
  Harness.sleep(0.5)
  local afterRemove = {}
  for i = countBeforeRemove + 1, #seen do
    table.insert(afterRemove, seen[i].code)
  end
  local mode = watcher.mode
  watcher:stop()
  local streams, sent, gets = {}, {}, {}
  for i = 1, #http.requests do
    if http.requests[i].method == "STREAM" then
      table.insert(streams, http.requests[i].url)
    elseif http.requests[i].method == "SEND" then
      table.insert(sent, http.requests[i].url)
    else
      table.insert(gets, http.requests[i].url)
    end
  end
  Harness.emit({ first = first, modeAfterFirst = modeAfterFirst, changed = changed, added = added, afterRemove = afterRemove,
    mode = mode, errors = errors, streams = streams, sent = sent, requests = gets })
end)
