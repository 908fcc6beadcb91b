--[[
PresenceLink/Watch: link:watch, which delivers each watched code's block whenever it changes: pushed through
MessagingService in a live server (with a reconcile poll), over a stream in Studio (Streams.lua), polled otherwise.
]]

local PresenceLink = require(script.Parent.Constants)
local Players = require(script.Parent.Players)
local Streams = require(script.Parent.Streams)

local playerOf = Players.playerOf

------------------------------------------------------------------------------------------------------------------
-- watch. In a live server: pushed changes through MessagingService, and a reconcile poll every reconcileInterval
-- (polling every pollInterval while push is not working). In Studio: a stream when the service offers one (SSE or
-- WebSocket through HttpService:CreateWebStreamClient, which works in Studio only), polling otherwise.

local Watcher = {}
Watcher.__index = Watcher

local function blockKey(block)
  local parts = { block.code, block.marker or ";", block.username or "", block.message or "" }
  for i = 1, #(block.activities or {}) do
    table.insert(parts, table.concat(block.activities[i].lines, "\n"))
  end
  return table.concat(parts, "\0")
end

-- The rpc view of a callbacks block: its activities when the code is active, none otherwise.
local function rpcOf(block)
  if block.marker == ";" then
    return { code = block.code, activities = block.activities }
  end
  return { code = block.code, activities = {} }
end

--- Watches codes and calls onBlock(block) with each code's block (text filtered, as poll gives it) at first and
--- whenever it changes. options: view ("callbacks" or "rpc"), onError(err). Returns a watcher with :add(code,
--- player), :remove(code), :stop(), and .mode ("push" or "poll" in a live server; "stream" or "poll" in Studio).
function PresenceLink:watch(codes, onBlock, options)
  options = options or {}
  local w = setmetatable({
    link = self,
    onBlock = onBlock,
    view = options.view or "callbacks",
    codes = {},
    order = {},
    last = {},
    seq = {},
    joined = {},
    reported = {},
    stopped = false,
    live = not self:isStudio(),
    mode = "poll",
    stream = nil,
    streamCodes = nil,
    nextStreamTry = 0,
    onError = options.onError,
  }, Watcher)
  for i = 1, #(codes or {}) do
    w:add(codes[i])
  end
  self.watchers[w] = true
  self.spawn(function()
    w:run()
  end)
  return w
end

function Watcher:list()
  local out = {}
  for i = 1, #self.order do
    if self.codes[self.order[i]] then
      table.insert(out, self.order[i])
    end
  end
  return out
end

--- Starts watching a code (a player joined); `player` (a Player or a user id) is the one its text is filtered from.
--- Malformed codes are ignored.
function Watcher:add(code, player)
  if not PresenceLink.isCode(code) then
    return
  end
  local _, userId = playerOf(player)
  if type(userId) == "number" then
    self.link.userIds[code] = userId
  end
  if not self.codes[code] then
    self.codes[code] = true
    table.insert(self.order, code)
    self.joined[code] = true
    self.membersChanged = true
    -- A player who just linked should not wait a whole round for their first block.
    self.dirty = true
    self:resubscribe({ code }, nil)
  end
end

--- Stops watching a code (a player left).
function Watcher:remove(code)
  if self.codes[code] then
    self.codes[code] = nil
    self.last[code] = nil
    self.joined[code] = nil
    local kept = {}
    for i = 1, #self.order do
      if self.order[i] ~= code then
        table.insert(kept, self.order[i])
      end
    end
    self.order = kept
    self.membersChanged = true
    if self.live then
      -- Declared at once: the server's declaration should not keep a player who left.
      self.dirty = true
    end
    self:resubscribe(nil, { code })
  end
end

--- Stops everything: the stream is closed, polling ends, and a live server's push declaration goes without these
--- codes.
function Watcher:stop()
  if self.stopped then
    return
  end
  self.stopped = true
  self:closeStream()
  self.link.watchers[self] = nil
  if self.live then
    self.link.push:forget()
  end
end

function Watcher:report(err)
  if self.onError ~= nil and err ~= nil then
    pcall(self.onError, err)
  end
end

-- Filter problems: each failure, and once per code a text hidden for want of its player.
function Watcher:reportProblems(problems)
  for i = 1, #problems do
    local problem = problems[i]
    local key = problem.code .. ":" .. problem.reason
    if problem.reason == "error" or not self.reported[key] then
      self.reported[key] = true
      if problem.reason == "error" then
        problem.detail = "TextService could not filter a text of " .. problem.code .. " (hidden; filtering pauses, then retries): " .. tostring(problem.detail)
      elseif problem.reason ~= "paused" then
        problem.detail = "a text of " .. problem.code .. " is hidden: " .. problem.reason .. " (give the player to watcher:add(code, player))"
      end
      if problem.reason ~= "paused" then
        self:report(problem)
      end
    end
  end
end

--- Delivers the blocks of watched codes, filtered, to onBlock when they changed. A block overtaken by a newer one of
--- the same code while its text was being filtered is dropped.
function Watcher:deliverAll(blocks)
  local mine, seqs = {}, {}
  for i = 1, #blocks do
    local code = blocks[i].code
    if self.codes[code] then
      self.seq[code] = (self.seq[code] or 0) + 1
      table.insert(mine, blocks[i])
      table.insert(seqs, self.seq[code])
    end
  end
  if #mine == 0 then
    return
  end
  local shown, problems = self.link:display(mine)
  self:reportProblems(problems)
  for i = 1, #shown do
    local block = shown[i]
    local code = block.code
    if not self.stopped and self.codes[code] and self.seq[code] == seqs[i] then
      local key = blockKey(block)
      if self.last[code] ~= key then
        self.last[code] = key
        local ok, err = pcall(self.onBlock, block)
        if not ok then
          self:report({ kind = "callback", detail = "onBlock failed: " .. tostring(err) })
        end
      end
    end
  end
end

-- Reads `list` (every watched code by default) and delivers the blocks.
function Watcher:pollOnce(list)
  list = list or self:list()
  if #list == 0 then
    return
  end
  local blocks, err
  if self.view == "rpc" then
    blocks, err = self.link:read("rpc", list, PresenceLink.parseRpc)
  else
    blocks, err = self.link:read("callbacks", list, PresenceLink.parseCallbacks)
  end
  if blocks == nil then
    self:report(err)
    return
  end
  self:deliverAll(blocks)
end

--- A pushed message: the blocks of this watcher's codes are delivered; codes named without their block (they did not
--- fit in one message) are read.
function Watcher:onPush(value)
  if self.stopped then
    return
  end
  if type(value.blocks) == "table" then
    local blocks = {}
    for code, text in pairs(value.blocks) do
      if self.codes[code] and type(text) == "string" then
        local parsed, err = PresenceLink.parseCallbacks(text)
        if parsed ~= nil and #parsed == 1 and parsed[1].code == code then
          table.insert(blocks, self.view == "rpc" and rpcOf(parsed[1]) or parsed[1])
        else
          local why = err and (" at line " .. err.line .. ": " .. err.message) or ""
          self:report({ kind = "push", detail = "the pushed block of " .. code .. " does not follow the block grammar" .. why })
        end
      end
    end
    self:deliverAll(blocks)
  end
  if type(value.codes) == "table" then
    local mine = {}
    for i = 1, #value.codes do
      if self.codes[value.codes[i]] then
        table.insert(mine, value.codes[i])
      end
    end
    self:pollOnce(mine)
  end
end

-- The codes added since the last round, in order.
function Watcher:takeJoined()
  local out = {}
  for i = 1, #self.order do
    if self.joined[self.order[i]] then
      table.insert(out, self.order[i])
    end
  end
  self.joined = {}
  return out
end

-- Sleeps until `untilTime`, in steps of at most a second so a code added meanwhile is read within a second (codes
-- added together within that second share one request).
function Watcher:sleepUntil(untilTime)
  local link = self.link
  while not self.stopped and not self.dirty and link.clock() < untilTime do
    link.sleep(math.min(1, untilTime - link.clock()))
  end
end

function Watcher:run()
  if self.live then
    self:runLive()
  else
    self:runStudio()
  end
end

-- A live server: listen to the topic, declare the codes (on join and leave, and with every reconcile), read joining
-- players' codes at once, and poll every code each round: every reconcileInterval while push works (at most half the
-- declaration's lifetime, so it never lapses), every pollInterval otherwise. Streams are never tried.
function Watcher:runLive()
  local link = self.link
  local push = link.push
  local unusable = push:unusable()
  if unusable ~= nil then
    self:report({ kind = "push", detail = unusable .. ": watch polls every pollInterval" })
  end
  local nextRound = 0
  while not self.stopped do
    self.dirty = false
    if unusable == nil then
      self:report(push:listen())
    end
    local reconcile = link.clock() >= nextRound
    if unusable == nil and (reconcile or self.membersChanged or push:due()) then
      self.membersChanged = false
      self:report(push:declare())
    end
    if reconcile then
      self.joined = {}
      self:pollOnce()
    else
      self:pollOnce(self:takeJoined())
    end
    if push:live() then
      self.mode = "push"
    else
      self.mode = "poll"
    end
    if reconcile then
      local interval = link.pollInterval
      if push:live() then
        interval = math.min(link.reconcileInterval, math.max(1, push.expiresIn / 2))
      end
      nextRound = link.clock() + interval
    end
    local wake = nextRound
    if unusable == nil and push.pending then
      wake = math.min(wake, push.retryAt)
    end
    self:sleepUntil(wake)
  end
end

-- Studio: a stream when the service offers one, polling otherwise (and around a stream that is slow to deliver).
function Watcher:runStudio()
  local link = self.link
  while not self.stopped do
    -- Cleared before the round: a code added while this round's request is on its way makes the next one come soon.
    self.dirty = false
    self.joined = {}
    if self.stream == nil and link.clock() >= self.nextStreamTry then
      self:openStream()
    end
    -- Poll whenever there is no stream, and when a stream opened but has not delivered within
    -- STREAM_FIRST_BLOCKS_SECONDS, so nothing is ever missed; a stream that is opening is given that long first
    -- (it sends every code's block at once), so a join does not cost a poll as well as a stream.
    local waitingForStream = self.stream ~= nil and self.mode ~= "stream" and link.clock() < self.streamDeadline
    if self.mode ~= "stream" and not waitingForStream then
      self:pollOnce()
    end
    local nextRound = link.clock() + link.pollInterval
    if waitingForStream then
      nextRound = math.min(nextRound, self.streamDeadline)
    end
    self:sleepUntil(nextRound)
  end
end

-- The Studio stream methods (Streams).
for name, method in pairs(Streams.methods) do
  Watcher[name] = method
end

return {
  Watcher = Watcher,
}
