--[[
PresenceLinkServer: the example server Script of the PresenceLink kit (clients/roblox/PresenceLink.rbxmx), in
ServerScriptService beside the PresenceLink ModuleScript. It creates the RemoteEvent `LinkCode` in ReplicatedStorage
(the kit's code-entry GUI fires it), binds what a player types, remembers which player holds which code (a returning
player's code comes back from the service: link:codeFor), and watches those codes: each player's Discord activity,
filtered, becomes the player's attribute `DiscordActivity` (show it however you like; the kit's GUI shows the
player their own).

Set the service's address as this script's attribute `BaseUrl` (or edit the line below), and the API key as the
experience Secret `presence_link` (docs/roblox.md, step 2).
]]

local HttpService = game:GetService("HttpService")
local Players = game:GetService("Players")
local ReplicatedStorage = game:GetService("ReplicatedStorage")
local ServerScriptService = game:GetService("ServerScriptService")

local BASE_URL = script:GetAttribute("BaseUrl") or "https://presence.example.com/api/v1"
local SECRET_NAME = script:GetAttribute("SecretName") or "presence_link"
local ATTRIBUTE = "DiscordActivity"

if script.Parent ~= ServerScriptService then
  warn("PresenceLink kit: move PresenceLinkServer and PresenceLink into ServerScriptService (see docs/roblox.md)")
  return
end

local PresenceLink = require(ServerScriptService:WaitForChild("PresenceLink"))

local linkCode = Instance.new("RemoteEvent")
linkCode.Name = "LinkCode"
linkCode.Parent = ReplicatedStorage

local link = PresenceLink.new({ baseUrl = BASE_URL, apiKey = HttpService:GetSecret(SECRET_NAME) })
local codeOf = {} -- player -> code
local holderOf = {} -- code -> player
local binding = {} -- player -> true while their bind is on its way

-- One line for a block: the first activity ("Playing · Minecraft"), "No activity", or the status message.
local function lineOf(block)
  if block.marker == ";" and #block.activities > 0 then
    return table.concat(block.activities[1].lines, " · ")
  elseif block.marker == ";" then
    return "No activity"
  end
  return block.message
end

local watcher = link:watch({}, function(block)
  local player = holderOf[block.code]
  if player ~= nil then
    player:SetAttribute(ATTRIBUTE, lineOf(block))
  end
end, { onError = function(err)
  warn("PresenceLink:", err.detail)
end })

local function follow(player, code)
  local previous = codeOf[player]
  if previous == code then
    return
  end
  if previous ~= nil then
    watcher:remove(previous)
    holderOf[previous] = nil
  end
  codeOf[player] = code
  holderOf[code] = player
  watcher:add(code, player)
end

local function forget(player)
  local code = codeOf[player]
  if code ~= nil then
    watcher:remove(code)
    holderOf[code] = nil
    codeOf[player] = nil
  end
  binding[player] = nil
end

local function onPlayerAdded(player)
  -- A returning player linked before: no need to type the code again.
  local code, result = link:codeFor(player)
  if code ~= nil and Players:GetPlayerByUserId(player.UserId) ~= nil and codeOf[player] == nil then
    follow(player, code)
  elseif result ~= nil and not result.ok then
    warn("PresenceLink:", result.detail)
  end
end

Players.PlayerAdded:Connect(onPlayerAdded)
Players.PlayerRemoving:Connect(forget)
-- Players who joined before this script ran (Studio's Play starts them together).
for _, player in ipairs(Players:GetPlayers()) do
  task.spawn(onPlayerAdded, player)
end

linkCode.OnServerEvent:Connect(function(player, typed)
  -- Whatever a client sends is untrusted; one bind at a time per player.
  if type(typed) ~= "string" or #typed > 32 or binding[player] then
    return
  end
  binding[player] = true
  local result = link:bind(player, typed)
  binding[player] = nil
  linkCode:FireClient(player, result.ok, result.message)
  if result.ok and Players:GetPlayerByUserId(player.UserId) ~= nil then
    follow(player, result.code)
  elseif not result.ok and result.detail then
    warn("PresenceLink:", result.detail)
  end
end)
