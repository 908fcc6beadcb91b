--[[
LinkCodeClient: the LocalScript of the PresenceLink kit's code-entry GUI (PresenceLinkGui, in StarterGui). The player
types the code the Discord bot's /code command gave them; the server (PresenceLinkServer) binds it through the
RemoteEvent `LinkCode` and answers with a sentence to show. The panel also shows the player's own activity line once
it is linked (the server's `DiscordActivity` attribute, already filtered).
]]

local Players = game:GetService("Players")
local ReplicatedStorage = game:GetService("ReplicatedStorage")

local player = Players.LocalPlayer
local panel = script.Parent:WaitForChild("Panel")
local box = panel:WaitForChild("CodeBox")
local button = panel:WaitForChild("LinkButton")
local status = panel:WaitForChild("Status")
local activity = panel:WaitForChild("Activity")
local linkCode = ReplicatedStorage:WaitForChild("LinkCode")

local waiting = false

local function submit()
  if waiting or box.Text == "" then
    return
  end
  waiting = true
  status.Text = "Linking..."
  linkCode:FireServer(box.Text)
  -- The server always answers; this only frees the button if the answer was lost.
  task.delay(15, function()
    waiting = false
  end)
end

button.Activated:Connect(submit)
box.FocusLost:Connect(function(enterPressed)
  if enterPressed then
    submit()
  end
end)

linkCode.OnClientEvent:Connect(function(ok, message)
  waiting = false
  status.Text = message
  if ok then
    box.Text = ""
  end
end)

local function showActivity()
  local text = player:GetAttribute("DiscordActivity")
  if type(text) == "string" then
    activity.Text = text
  end
end

player:GetAttributeChangedSignal("DiscordActivity"):Connect(showActivity)
showActivity()
