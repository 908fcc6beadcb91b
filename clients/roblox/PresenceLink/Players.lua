--[[
PresenceLink/Players: binding what a player typed to their account, and a returning player's code. Adds
PresenceLink:bind, bindCode and codeFor.
]]

local PresenceLink = require(script.Parent.Constants)
local Http = require(script.Parent.Http)

local failure = Http.failure

-- A Player's name and user id (a plain user id gives no name).
local function playerOf(player)
  if type(player) == "table" or type(player) == "userdata" then
    return player.Name, player.UserId
  end
  if type(player) == "number" then
    return nil, player
  end
  return nil, nil
end

--- Links what a player typed to their Roblox account. Returns { ok, status, message, code, ... }: status is the
--- service's (`bound`, `already_bound`, `not_found`, `banned`, `invalidated`), `invalid_code` when the text is no
--- code, `rate_limited`, or `error`; message is a sentence to show the player; detail says more for the developer.
function PresenceLink:bind(player, typed)
  local name, userId = playerOf(player)
  local candidates = PresenceLink.codeCandidates(typed)
  if #candidates == 0 then
    return failure(nil, "invalid_code", "invalid_code", PresenceLink.MESSAGES.invalid_code, "not a code after normalizing: " .. string.format("%q", tostring(typed)))
  end
  local result
  for i = 1, #candidates do
    result = self:bindCode(name, userId, candidates[i])
    -- Only an old code with O, I or L typed as such is worth a second try, and only when the first was unknown.
    if result.status ~= "not_found" then
      break
    end
  end
  return result
end

function PresenceLink:bindCode(name, userId, code)
  local response, err = self:request("bind", "POST", "/bind", { code = code, platform_username = name, platform_user_id = userId }, true)
  if response == nil then
    err.code = code
    return err
  end
  if response.StatusCode == 200 then
    local body = self:decode(response) or {}
    if type(userId) == "number" then
      self.userIds[code] = userId
    end
    return { ok = true, httpStatus = 200, status = body.status, code = code, username = body.platform_username, message = PresenceLink.MESSAGES[body.status] or PresenceLink.MESSAGES.bound }
  end
  local result = self:failureOf(response, nil)
  result.code = code
  if result.message == nil then
    if result.status == "not_found" then
      result.message = PresenceLink.MESSAGES.not_found
    elseif (result.status == "banned" or result.status == "invalidated") and result.serviceMessage ~= nil then
      -- The service's own sentence is meant for the player: whom to contact, what to do next.
      result.message = result.serviceMessage
    else
      result.message = PresenceLink.MESSAGES.unavailable
    end
  end
  return result
end

------------------------------------------------------------------------------------------------------------------
-- Returning players

--- The code a returning player linked before (GET /players/{userId}): the bound one, else a paused one (still theirs:
--- it shows "Detection Paused"). Returns code and { ok = true, status, codes } (code nil and status "none" when they
--- have neither: they type a code), or nil and a failure. `codes` lists every code with its status (bound, paused,
--- banned, invalidated) and platform_username.
function PresenceLink:codeFor(player)
  local _, userId = playerOf(player)
  if type(userId) ~= "number" or userId < 1 or userId % 1 ~= 0 then
    return nil, failure(nil, "error", "invalid_player", PresenceLink.MESSAGES.unavailable, "codeFor needs a Player or a Roblox user id, got " .. tostring(player))
  end
  local response, err = self:request("players", "GET", "/players/" .. string.format("%.0f", userId), nil, true)
  if response == nil then
    return nil, err
  end
  if response.StatusCode ~= 200 then
    return nil, self:failureOf(response, nil)
  end
  local body = self:decode(response)
  if body == nil or type(body.codes) ~= "table" then
    return nil, failure(200, "error", "bad_response", PresenceLink.MESSAGES.unavailable, "the players answer has no codes list")
  end
  local wanted = { "bound", "paused" }
  for w = 1, #wanted do
    for i = 1, #body.codes do
      local entry = body.codes[i]
      if type(entry) == "table" and entry.status == wanted[w] and PresenceLink.isCode(entry.code) then
        self.userIds[entry.code] = userId
        return entry.code, { ok = true, httpStatus = 200, status = wanted[w], codes = body.codes }
      end
    end
  end
  return nil, { ok = true, httpStatus = 200, status = "none", codes = body.codes }
end

return {
  playerOf = playerOf,
}
