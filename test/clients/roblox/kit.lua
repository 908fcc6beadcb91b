-- kit: the kit's example server Script (clients/roblox/kit/PresenceLinkServer.server.lua) run as the engine would run
-- it, over a small stand-in of the engine's objects (game with its services and BindToClose, Instance.new for the
-- RemoteEvent, script, task, warn, require of the ModuleScript), against the real service. A returning player
-- (RETURNING_NAME/_ID, in the server when the script starts) gets their code back from codeFor and their activity
-- shown; a new player (NEW_NAME/_ID) types their code (NEW_CODE) through the RemoteEvent, gets the answer sentence and
-- their activity shown, filtered; malformed input is ignored; a player who leaves is forgotten. With
-- PLACEMENT=workspace the script only warns.
local Harness = require("harness")
local PresenceLink = require("PresenceLink")

local warnings, fired = {}, {}
local players = Harness.players({})
players.PlayerAdded = Harness.signal()
players.PlayerRemoving = Harness.signal()

local function newPlayer(name, userId)
  local player = { Name = name, UserId = userId, attributes = {}, changes = {} }
  function player:SetAttribute(key, value)
    self.attributes[key] = value
    table.insert(self.changes, value)
  end
  function player:GetAttribute(key)
    return self.attributes[key]
  end
  return player
end

local http = Harness.httpService()
function http:GetSecret(name)
  assert(name == "presence_link", "the kit reads the Secret presence_link")
  return Harness.secret(Harness.env("API_KEY"))
end
local replicatedStorage = { children = {} }
local serverScriptService = { children = {} }
local workspace = {}
local moduleScript = { Name = "PresenceLink", ClassName = "ModuleScript" }
serverScriptService.children.PresenceLink = moduleScript
function serverScriptService:WaitForChild(name)
  return assert(self.children[name], "no child " .. name)
end
local services = {
  HttpService = http,
  Players = players,
  ReplicatedStorage = replicatedStorage,
  ServerScriptService = serverScriptService,
  TextService = Harness.textService({ players = players }),
  RunService = Harness.runService(false),
}

local closers = {}
game = { GameId = 0, JobId = "kit-test-server" }
function game:GetService(name)
  return services[name]
end
function game:BindToClose(fn)
  table.insert(closers, fn)
end
script = { Parent = os.getenv("PLACEMENT") == "workspace" and workspace or serverScriptService }
function script:GetAttribute(name)
  if name == "BaseUrl" then
    return Harness.env("BASE_URL")
  end
  return nil
end
Instance = {
  new = function(className)
    assert(className == "RemoteEvent", "the kit creates only its RemoteEvent")
    local remote = { ClassName = className, OnServerEvent = Harness.signal() }
    function remote:FireClient(player, ok, message)
      table.insert(fired, { player = player.Name, ok = ok, message = message })
    end
    return setmetatable({}, {
      __index = remote,
      __newindex = function(_, key, value)
        rawset(remote, key, value)
        if key == "Parent" then
          value.children[remote.Name] = remote
        end
      end,
    })
  end,
}
task = {
  spawn = function(fn, ...)
    local args = { ... }
    Harness.spawn(function()
      fn(unpack(args))
    end)
  end,
  wait = Harness.sleep,
}
DateTime = {
  now = function()
    return { UnixTimestampMillis = Harness.clock() * 1000 }
  end,
}
warn = function(...)
  local parts = {}
  for i = 1, select("#", ...) do
    parts[i] = tostring((select(i, ...)))
  end
  table.insert(warnings, table.concat(parts, " "))
end
local nativeRequire = require
require = function(target)
  if target == moduleScript then
    return PresenceLink
  end
  return nativeRequire(target)
end

Harness.run(function()
  local returning = players:join(newPlayer(Harness.env("RETURNING_NAME"), tonumber(Harness.env("RETURNING_ID"))))
  local server = assert(loadfile("clients/roblox/kit/PresenceLinkServer.server.lua"))
  server()
  local remote = replicatedStorage.children.LinkCode
  if os.getenv("PLACEMENT") == "workspace" then
    Harness.sleep(0.2)
    Harness.emit({ warnings = warnings, remote = remote ~= nil })
    return
  end
  Harness.waitFor("the returning player's activity", function()
    return returning:GetAttribute("DiscordActivity") ~= nil
  end)
  local newcomer = players:join(newPlayer(Harness.env("NEW_NAME"), tonumber(Harness.env("NEW_ID"))))
  players.PlayerAdded:Fire(newcomer)
  local function send(player, typed)
    Harness.spawn(function()
      remote.OnServerEvent:Fire(player, typed)
    end)
  end
  send(newcomer, 12345)
  send(newcomer, string.rep("K", 40))
  Harness.sleep(0.3)
  local firedBeforeCode = #fired
  local code = Harness.env("NEW_CODE")
  send(newcomer, " " .. string.lower(string.sub(code, 1, 2)) .. "-" .. string.sub(code, 3))
  Harness.waitFor("the new player's activity", function()
    return newcomer:GetAttribute("DiscordActivity") ~= nil
  end)
  players:leave(newcomer.UserId)
  players.PlayerRemoving:Fire(newcomer)
  Harness.sleep(0.3)
  Harness.emit({
    returning = returning.changes,
    newcomer = newcomer.changes,
    firedBeforeCode = firedBeforeCode,
    fired = fired,
    remoteIn = remote ~= nil,
    warnings = warnings,
    boundToClose = #closers,
    requests = (function()
      local out = {}
      for i = 1, #http.requests do
        table.insert(out, http.requests[i].method .. " " .. http.requests[i].url)
      end
      return out
    end)(),
  })
end)
