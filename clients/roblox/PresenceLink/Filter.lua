--[[
PresenceLink/Filter: the text filter every username and activity line goes through before game code sees it. Adds
PresenceLink:display (and runAll, userIdFor).
]]

local PresenceLink = require(script.Parent.Constants)

------------------------------------------------------------------------------------------------------------------
-- Filtered text. Roblox's ui/text-filtering.md: "you are responsible for filtering any displayed text that you don't
-- have explicit control over", naming "an experience that connects to an external web server to fetch content that
-- is displayed in-experience"; an experience found not filtering is removed until it does. Every username and
-- activity line goes through TextService:FilterStringAsync(text, fromUserId), fromUserId being the linked player's
-- Roblox user id, then TextFilterResult:GetNonChatStringForBroadcastAsync() (the text is shown to everyone in the
-- server). Both yield and can throw. The engine retries inside FilterStringAsync and asks callers not to retry and
-- not to show the text when it fails: a failure hides the text (HIDDEN_TEXT) and pauses filtering, 1 s doubled per
-- consecutive failure up to FILTER_BACKOFF_MAX_SECONDS; the next delivery of the block tries again. Results are kept
-- per (text, player), at most filterCacheSize of them (oldest out first), to show the same text again without asking
-- again; at most filterConcurrency filter calls run at once.

local TextFilter = {}
TextFilter.__index = TextFilter

local function newTextFilter(link, options)
  return setmetatable({
    link = link,
    service = options.service,
    limit = options.concurrency or 4,
    size = options.cacheSize or 1000,
    cache = {},
    keys = {},
    head = 1,
    tail = 0,
    count = 0,
    pending = {},
    inFlight = 0,
    failures = 0,
    pausedUntil = 0,
  }, TextFilter)
end

function TextFilter:remember(key, text)
  if self.cache[key] == nil then
    self.tail = self.tail + 1
    self.keys[self.tail] = key
    self.count = self.count + 1
    while self.count > self.size do
      local oldest = self.keys[self.head]
      self.keys[self.head] = nil
      self.head = self.head + 1
      self.cache[oldest] = nil
      self.count = self.count - 1
    end
  end
  if self.size > 0 then
    self.cache[key] = text
  end
end

-- FilterStringAsync throws for a user who is not in this server: such text is hidden without asking.
function TextFilter:inServer(userId)
  local players = self.link.players
  if players == nil then
    return true
  end
  local ok, player = pcall(function()
    return players:GetPlayerByUserId(userId)
  end)
  return ok and player ~= nil
end

function TextFilter:paused()
  return self.link.clock() < self.pausedUntil
end

--- The filtered text, or nil and why it is hidden: "no_player", "not_in_server", "no_text_service", "paused" (after a
--- recent failure) or "error" (then also the engine's message).
function TextFilter:filter(text, userId)
  if type(userId) ~= "number" then
    return nil, "no_player"
  end
  local key = string.format("%.0f", userId) .. "\n" .. text
  local known = self.cache[key]
  if known ~= nil then
    return known
  end
  if self.service == nil then
    return nil, "no_text_service"
  end
  if not self:inServer(userId) then
    return nil, "not_in_server"
  end
  -- The same text of the same player already on its way (two blocks at once): wait for that answer.
  while self.pending[key] and not self:paused() do
    self.link.sleep(0.05)
  end
  while self.inFlight >= self.limit and not self:paused() do
    self.link.sleep(0.05)
  end
  known = self.cache[key]
  if known ~= nil then
    return known
  end
  if self:paused() then
    return nil, "paused"
  end
  self.pending[key] = true
  self.inFlight = self.inFlight + 1
  local service = self.service
  local ok, result = pcall(function()
    return service:FilterStringAsync(text, userId):GetNonChatStringForBroadcastAsync()
  end)
  self.inFlight = self.inFlight - 1
  self.pending[key] = nil
  if ok and type(result) == "string" then
    self.failures = 0
    self:remember(key, result)
    return result
  end
  self.failures = self.failures + 1
  self.pausedUntil = self.link.clock() + math.min(PresenceLink.FILTER_BACKOFF_MAX_SECONDS, 2 ^ (self.failures - 1))
  return nil, "error", tostring(result)
end

--- Runs the functions together (each as its own task) and returns when all have ended.
function PresenceLink:runAll(jobs)
  if #jobs == 1 then
    pcall(jobs[1])
    return
  end
  local done = 0
  for i = 1, #jobs do
    local job = jobs[i]
    self.spawn(function()
      pcall(job)
      done = done + 1
    end)
  end
  while done < #jobs do
    self.sleep(0.02)
  end
end

--- The Roblox user id of the player linked to `code`, when known or when a player of this server has `username`.
function PresenceLink:userIdFor(code, username)
  local known = self.userIds[code]
  if known ~= nil or username == nil or self.players == nil then
    return known
  end
  local ok, list = pcall(function()
    return self.players:GetPlayers()
  end)
  if ok and type(list) == "table" then
    for i = 1, #list do
      if list[i].Name == username then
        self.userIds[code] = list[i].UserId
        return list[i].UserId
      end
    end
  end
  return nil
end

-- One text of a block to filter: where its result goes, and what happened.
local function textJob(filter, text, userId, entries, assign)
  local entry = { text = text, assign = assign }
  table.insert(entries, entry)
  return function()
    entry.out, entry.why, entry.detail = filter:filter(text, userId)
  end
end

--- The blocks as game code may show them: the username, every activity line and any message other than the
--- service's fixed ones filtered (a copy; `hidden = true` on a block with a hidden text), and the problems met
--- ({ kind = "filter", code, reason, detail }). With rawText, the blocks themselves.
function PresenceLink:display(blocks)
  if self.rawText then
    return blocks, {}
  end
  local shown, jobs, entries = {}, {}, {}
  for i = 1, #blocks do
    local block = blocks[i]
    local copy = { code = block.code, marker = block.marker, username = block.username, message = block.message }
    local userId = self:userIdFor(block.code, block.username)
    local own = {}
    if block.username ~= nil then
      table.insert(jobs, textJob(self.textFilter, block.username, userId, own, function(text)
        copy.username = text
      end))
    end
    if block.message ~= nil and not PresenceLink.STATUS_MESSAGES[block.message] then
      table.insert(jobs, textJob(self.textFilter, block.message, userId, own, function(text)
        copy.message = text
      end))
    end
    if block.activities ~= nil then
      copy.activities = {}
      for g = 1, #block.activities do
        local lines = {}
        copy.activities[g] = { lines = lines }
        for l = 1, #block.activities[g].lines do
          table.insert(jobs, textJob(self.textFilter, block.activities[g].lines[l], userId, own, function(text)
            lines[l] = text
          end))
        end
      end
    end
    shown[i] = copy
    entries[i] = own
  end
  self:runAll(jobs)
  local problems = {}
  for i = 1, #shown do
    for _, entry in ipairs(entries[i]) do
      if entry.out ~= nil then
        entry.assign(entry.out)
      else
        entry.assign(self.hiddenText)
        shown[i].hidden = true
        table.insert(problems, { kind = "filter", code = shown[i].code, reason = entry.why or "error", detail = entry.detail })
      end
    end
  end
  return shown, problems
end

return {
  new = newTextFilter,
}
