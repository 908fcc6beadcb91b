-- push: watch in a live server gets changes through MessagingService, published by the service through the fake
-- Open Cloud, with polling made impossible: the stand-in HttpService refuses callbacks and rpc after the first
-- reconcile poll (and the poll and reconcile intervals are an hour). It declares its codes (POST /push/subscriptions)
-- on the first round and when a player leaves, and ends the declaration when stopped. Crafted messages published to the
-- fake Open Cloud directly: a hostile title is filtered, a code of another server and an unknown version are ignored,
-- a broken block is reported.
local Harness = require("harness")

local function playing(block, game)
  return block ~= nil and block.activities ~= nil and #block.activities > 0 and block.activities[1].lines[2] == game
end

Harness.run(function()
  local code = Harness.env("CODE")
  local second = Harness.env("SECOND_CODE")
  local universe = tonumber(Harness.env("UNIVERSE_ID"))
  local players = Harness.players(Harness.playersFromEnv())
  local messaging = Harness.messagingService({ universeId = universe })
  local link, http = Harness.link({ studio = false, stream = "sse", universeId = universe, players = players, messagingService = messaging, pollInterval = 3600, reconcileInterval = 3600 })
  local reads = 0
  http.refuse = function(request)
    if string.find(request.Url, "/callbacks/", 1, true) or string.find(request.Url, "/rpc/", 1, true) then
      reads = reads + 1
      return reads > 1
    end
    return false
  end
  local seen, errors = {}, {}
  local watcher = link:watch({}, function(block)
    table.insert(seen, block)
  end, { onError = function(err)
    table.insert(errors, err)
  end })
  watcher:add(code, players:GetPlayers()[1])
  watcher:add(second, players:GetPlayers()[2])
  local function last(c)
    return Harness.lastBlock(seen, c)
  end
  Harness.waitFor("both first blocks", function()
    return last(code) ~= nil and last(second) ~= nil
  end)
  local out = { first = last(code), firstSecond = last(second), modeAfterFirst = watcher.mode }

  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Hollow Knight" } } })
  Harness.waitFor("the pushed change to Hollow Knight", function()
    return playing(last(code), "Hollow Knight")
  end)
  out.changed = last(code)

  local openCloud = Harness.env("OPEN_CLOUD_URL") .. "/cloud/v2/universes/" .. string.format("%.0f", universe) .. ":publishMessage"
  local key = Harness.env("OPEN_CLOUD_KEY")
  local function publish(value)
    return Harness.post(openCloud, { topic = "presence-link", message = Harness.json.encode(value) }, { ["x-api-key"] = key })
  end
  local blocksBefore = #seen
  out.published = {
    publish({ v = 1, blocks = { ZZZZ = "{ZZZZ;\nSomeone;\nPlaying,\nElsewhere;\n}\n" } }),
    publish({ v = 2, blocks = { [code] = "{" .. code .. ";\nAlice_R;\nPlaying,\nFuture Format;\n}\n" } }),
    publish({ v = 1, blocks = { [code] = "{" .. code .. ";\nbroken" } }),
    publish({ v = 1, blocks = { [code] = "{" .. code .. ";\nAlice_R;\nPlaying,\nBadword Quest;\n}\n" } }),
  }
  Harness.waitFor("the crafted block", function()
    local b = last(code)
    return b ~= nil and b.activities ~= nil and #b.activities > 0 and string.find(b.activities[1].lines[2], "Quest", 1, true) ~= nil
  end)
  out.crafted = {}
  for i = blocksBefore + 1, #seen do
    table.insert(out.crafted, seen[i])
  end

  watcher:remove(second)
  Harness.waitFor("the declaration without the player who left", function()
    local r = http.requests[#http.requests]
    return r.method == "POST" and string.find(r.url, "/push/subscriptions", 1, true) ~= nil and not string.find(r.body, second, 1, true)
  end)
  local countBeforeLeave = #seen
  Harness.control("presence", { user_id = Harness.env("SECOND_USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Factorio" } } })
  Harness.control("presence", { user_id = Harness.env("USER_ID_DISCORD"), status = "online", activities = { { type = 0, name = "Celeste" } } })
  Harness.waitFor("the pushed change to Celeste", function()
    return playing(last(code), "Celeste")
  end)
  Harness.sleep(0.5)
  out.afterLeave = {}
  for i = countBeforeLeave + 1, #seen do
    table.insert(out.afterLeave, seen[i].code)
  end
  out.mode = watcher.mode
  watcher:stop()
  Harness.waitFor("the declaration's end", function()
    local r = http.requests[#http.requests]
    return r.method == "POST" and r.body ~= nil and string.find(r.body, '"codes":[]', 1, true) ~= nil
  end)

  out.declarations, out.reads, out.refused, out.streams = {}, 0, 0, 0
  for i = 1, #http.requests do
    local r = http.requests[i]
    if r.method == "POST" and string.find(r.url, "/push/subscriptions", 1, true) then
      table.insert(out.declarations, Harness.json.decode(r.body))
    elseif r.refused then
      out.refused = out.refused + 1
    elseif r.method == "GET" then
      out.reads = out.reads + 1
    elseif r.method == "STREAM" then
      out.streams = out.streams + 1
    end
  end
  out.errors = errors
  out.topics = messaging.topics
  Harness.emit(out)
end)
