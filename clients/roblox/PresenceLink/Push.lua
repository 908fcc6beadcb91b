--[[
PresenceLink/Push: changes pushed into live servers through MessagingService, and the declaration of the codes a
server shows. Adds PresenceLink:watchedCodes.
]]

local PresenceLink = require(script.Parent.Constants)

------------------------------------------------------------------------------------------------------------------
-- Push into live servers. Live game servers cannot hold streams, so the service publishes each changed block through
-- Open Cloud messaging (POST /cloud/v2/universes/{universe}:publishMessage) to the topic PUSH_TOPIC, which every
-- server of the universe receives with MessagingService:SubscribeAsync. A server declares the codes of its players
-- (POST /push/subscriptions, on join and leave and with each reconcile poll, since a declaration lapses after
-- expires_in seconds) and keeps only the blocks of its own codes. Delivery is best effort, hence the reconcile poll.
-- One declaration per server and API key: use one PresenceLink per server (its watchers share it).

local Push = {}
Push.__index = Push

local function newPush(link, options)
  return setmetatable({
    link = link,
    enabled = options.enabled,
    messaging = options.messaging,
    universeId = tonumber(options.universeId),
    serverId = options.serverId,
    connection = nil,
    listening = false,
    nextListen = 0,
    expiresAt = 0,
    expiresIn = nil,
    covered = true,
    declared = 0,
    pending = false,
    retryAt = 0,
    refusedUntil = 0,
  }, Push)
end

--- Why push cannot work in this server, or nil.
function Push:unusable()
  if not self.enabled then
    return "push is off (push = false in PresenceLink.new)"
  end
  if self.messaging == nil then
    return "no MessagingService"
  end
  if self.universeId == nil or self.universeId <= 0 then
    return "no universe id (game.GameId)"
  end
  if type(self.serverId) ~= "string" or #self.serverId < 1 or #self.serverId > 64 then
    return "no server id (game.JobId)"
  end
  return nil
end

--- True while pushed changes reach this server: subscribed to the topic, and the service holds every watched code.
function Push:live()
  return self.connection ~= nil and self.covered and self.link.clock() < self.expiresAt
end

--- True when a declaration failed and may be sent again now.
function Push:due()
  return self.pending and self.link.clock() >= self.retryAt
end

--- Subscribes to the topic, once per link (again streamRetrySeconds after a failure). Returns nil or an error.
function Push:listen()
  if self.connection ~= nil or self.listening or self.link.clock() < self.nextListen then
    return nil
  end
  self.listening = true
  local ok, connection = pcall(function()
    return self.messaging:SubscribeAsync(PresenceLink.PUSH_TOPIC, function(message)
      self:receive(message)
    end)
  end)
  self.listening = false
  if ok and connection ~= nil then
    self.connection = connection
    self.pending = true
    self.retryAt = 0
    return nil
  end
  self.nextListen = self.link.clock() + self.link.streamRetry
  return { kind = "push", detail = "MessagingService:SubscribeAsync failed: " .. tostring(connection) .. "; watch polls every pollInterval meanwhile" }
end

--- Declares the watched codes of this server to the service: on join and leave, and to renew. Returns nil or an error.
function Push:declare()
  local link = self.link
  local now = link.clock()
  if self.connection == nil or now < self.refusedUntil then
    self.pending = false
    return nil
  end
  local codes = link:watchedCodes()
  if #codes == 0 and self.declared == 0 then
    self.pending = false
    return nil
  end
  self.covered = #codes <= PresenceLink.MAX_PUSH_CODES
  local sent = {}
  for i = 1, math.min(#codes, PresenceLink.MAX_PUSH_CODES) do
    sent[i] = codes[i]
  end
  self.pending = true
  local body = { universe_id = self.universeId, server_id = self.serverId, codes = sent }
  local response, err = link:request("push", "POST", "/push/subscriptions", body, true)
  if response ~= nil and response.StatusCode == 200 then
    local answer = link:decode(response) or {}
    self.expiresIn = tonumber(answer.expires_in) or 120
    self.expiresAt = now + self.expiresIn
    self.declared = #sent
    self.pending = false
    if not self.covered then
      return { kind = "push", detail = #codes .. " codes watched and at most " .. PresenceLink.MAX_PUSH_CODES .. " can be pushed: watch polls every pollInterval" }
    end
    return nil
  end
  if response ~= nil then
    err = link:failureOf(response, nil)
  end
  err.kind = "push"
  self.expiresAt = 0
  if err.errorCode == "push_target_not_found" then
    self.refusedUntil = now + PresenceLink.PUSH_REFUSED_RETRY_SECONDS
    self.pending = false
    err.detail = err.detail .. "; watch polls every pollInterval (the operator attaches this universe's Open Cloud key: presence-link push add)"
  elseif err.httpStatus == 0 or err.httpStatus == 429 or err.httpStatus >= 500 then
    self.retryAt = now + math.max(5, err.retryAfter or 0)
  else
    self.retryAt = now + link.pollInterval
  end
  return err
end

--- A message of the topic: handed to every watcher (each keeps its own codes). Other versions are ignored.
function Push:receive(message)
  local data = type(message) == "table" and message.Data or nil
  if type(data) ~= "string" then
    return
  end
  local ok, value = pcall(function()
    return self.link.http:JSONDecode(data)
  end)
  if not ok or type(value) ~= "table" or value.v ~= 1 then
    return
  end
  for watcher in pairs(self.link.watchers) do
    watcher:onPush(value)
  end
end

--- A watcher stopped: the others declare without its codes; with none left, the declaration is ended and the
--- topic left.
function Push:forget()
  if next(self.link.watchers) ~= nil then
    if self.connection ~= nil then
      self.pending = true
      self.retryAt = 0
    end
    return
  end
  local connection = self.connection
  if connection == nil then
    return
  end
  self.link.spawn(function()
    self:declare()
    self.connection = nil
    pcall(function()
      connection:Disconnect()
    end)
  end)
end

--- The codes of every watcher of this link, once each, in the order they were added.
function PresenceLink:watchedCodes()
  local out, seen = {}, {}
  for watcher in pairs(self.watchers) do
    local list = watcher:list()
    for i = 1, #list do
      if not seen[list[i]] then
        seen[list[i]] = true
        table.insert(out, list[i])
      end
    end
  end
  return out
end

return {
  new = newPush,
}
