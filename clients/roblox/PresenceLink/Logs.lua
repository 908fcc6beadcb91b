--[[
PresenceLink/Logs: the log queue (LogQueue), its batches' scheduling and sending in LogBatches. Adds PresenceLink:log,
logStats, flushLogs and closeLogs.
]]

local PresenceLink = require(script.Parent.Constants)
local Http = require(script.Parent.Http)
local Players = require(script.Parent.Players)
local LogBatches = require(script.Parent.LogBatches)

local failure = Http.failure
local playerOf = Players.playerOf

------------------------------------------------------------------------------------------------------------------
-- Logs: a bounded queue in the game server, sent in batches (POST /log/{category} with {"events": [...]}). Kept in
-- this one section (the LogQueue class, then PresenceLink:log, logStats, flushLogs, closeLogs) so that it can be
-- lifted out whole (here and in LogBatches). What it uses from the rest of the module: link.http (JSONEncode, JSONDecode, GenerateGUID),
-- link.clock, link.sleep, link.spawn, link.governor (waitFor, limit, window), link:request, link:decode,
-- link:failureOf, failure and playerOf.
--
-- link:log() checks the category, encodes the event, queues it and returns at once. One flusher task per link sends
-- batches of one category each: at most LOG_BATCH_MAX_EVENTS events and LOG_BATCH_MAX_BYTES of body.
-- When: a category goes when its batch is full, or its oldest event has waited logFlushInterval (2 s); the highest
-- category holding a full batch, a batch to send again or an event older than LOG_URGENT_SECONDS goes first, else
-- the one that waited longest. How often: at most logRequestsPerMinute requests (28; the service allows 30 per server
-- address, shared by the three categories) and logEventsPerMinute events (2,800 of the service's 3,000) in any 60 s,
-- spread out (LOG_BURST at once after a quiet spell, then one every 60/28 s), retries included, and always through
-- the link's governor (the server's HTTP budget, and any hold the service asked for).
-- Bounded: at most logQueueSize events (2,000) wait or are on their way. An event that finds the queue full takes the
-- place of the newest waiting event of the lowest category below its own (ingame, then server; moderation is never
-- dropped for another), or is dropped itself. Drops are counted by reason: queue_full, invalid, refused, shutdown.
-- Each batch has its own Idempotency-Key. A 429 (after its Retry-After), a 5xx or no answer sends the same batch
-- again under the same key, after 1 s doubled per failure in a row up to LOG_RETRY_MAX_SECONDS, so the service
-- stores it once. 422 invalid_events: the events it names are dropped and reported (onLogDropped), the rest goes
-- again under a new key. 413 (and 422 invalid_json): split (to the answer's max_events, kept to from then on, or in
-- two). 401: kept and tried again after 5 s, doubled up to LOG_UNAUTHORIZED_RETRY_SECONDS. Any other refusal drops
-- the batch (refused, reported).
-- game:BindToClose calls closeLogs: everything queued is sent, highest category first, without the spacing, for at
-- most logCloseSeconds (25 of the 30 s Roblox gives); what is left then is dropped (shutdown).

-- Highest priority first: sent first at close, dropped last when the queue is full.
PresenceLink.LOG_CATEGORIES = { "moderation", "server", "ingame" }
PresenceLink.LOG_DROP_REASONS = { "queue_full", "invalid", "refused", "shutdown" }
PresenceLink.LOG_BATCH_MAX_EVENTS = 100
-- A batch's body at most (the service takes 1 MiB); an event's JSON at most (a valid one is under 30 kB).
PresenceLink.LOG_BATCH_MAX_BYTES = 262144
PresenceLink.LOG_EVENT_MAX_BYTES = 65536
PresenceLink.DEFAULT_LOG_QUEUE_SIZE = 2000
PresenceLink.DEFAULT_LOG_REQUESTS_PER_MINUTE = 28
PresenceLink.DEFAULT_LOG_EVENTS_PER_MINUTE = 2800
PresenceLink.DEFAULT_LOG_FLUSH_INTERVAL = 2
PresenceLink.DEFAULT_LOG_CLOSE_SECONDS = 25
PresenceLink.LOG_BURST = 3
PresenceLink.LOG_URGENT_SECONDS = 10
PresenceLink.LOG_RETRY_MAX_SECONDS = 30
PresenceLink.LOG_UNAUTHORIZED_RETRY_SECONDS = 60

local LOG_PRIORITY = { moderation = 3, server = 2, ingame = 1 }

-- What the onLogDropped callback hears of: the service refused these events (queue_full and shutdown are counted).
local LOG_REPORTED = { invalid = true, refused = true }

-- How often the flusher looks again while it waits (a batch filling up, a flush starting).
local LOG_TICK_SECONDS = 0.25

local LogQueue = {}
LogQueue.__index = LogQueue

local function newLogQueue(link, options)
  -- Never more than half the module's own budget: binds and polls keep the rest.
  local requests = options.requestsPerMinute or PresenceLink.DEFAULT_LOG_REQUESTS_PER_MINUTE
  requests = math.max(1, math.min(requests, math.floor(link.governor.limit / 2)))
  local self = setmetatable({
    link = link,
    capacity = options.size or PresenceLink.DEFAULT_LOG_QUEUE_SIZE,
    -- Lowered when the service answers 413 with the most events it takes (its whole log_events budget is smaller).
    batchMax = PresenceLink.LOG_BATCH_MAX_EVENTS,
    requestsPerWindow = requests,
    eventsPerWindow = math.max(1, options.eventsPerMinute or PresenceLink.DEFAULT_LOG_EVENTS_PER_MINUTE),
    window = link.governor.window,
    flushInterval = options.flushInterval or PresenceLink.DEFAULT_LOG_FLUSH_INTERVAL,
    closeSeconds = options.closeSeconds or PresenceLink.DEFAULT_LOG_CLOSE_SECONDS,
    onDropped = options.onDropped,
    -- Per category: the events not yet in a batch (a FIFO: items[first..last], each { json, at }), their bytes, and
    -- the batches formed (each { category, events, key, sends }), oldest first; `count` is all of them.
    waiting = {},
    waitingBytes = {},
    batches = {},
    count = 0,
    -- One { at, n } per request of the last window: the requests and events spent.
    stamps = {},
    tokens = PresenceLink.LOG_BURST,
    tokensAt = link.clock(),
    retryAt = 0,
    failures = 0,
    running = false,
    flushing = 0,
    closed = false,
    inFlight = nil,
    keys = 0,
    stats = { received = 0, sent = 0, batches = 0, retries = 0, rateLimited = 0, dropped = {}, droppedByCategory = {} },
  }, LogQueue)
  for _, category in ipairs(PresenceLink.LOG_CATEGORIES) do
    self.waiting[category] = { first = 1, last = 0, items = {} }
    self.waitingBytes[category] = 0
    self.batches[category] = {}
    self.stats.droppedByCategory[category] = 0
  end
  for _, reason in ipairs(PresenceLink.LOG_DROP_REASONS) do
    self.stats.dropped[reason] = 0
  end
  return self
end

local function logFailure(errorCode, detail)
  local result = failure(nil, "error", errorCode, nil, detail)
  result.queued = false
  return result
end

-- True when a value holds a number JSON cannot hold: HttpService:JSONEncode writes inf and nan, which no JSON parser
-- reads, so one such event would make its whole batch unreadable. Called on what JSONEncode took (no cycles).
local function hasNonFinite(value, depth)
  if type(value) == "number" then
    return value ~= value or value == math.huge or value == -math.huge
  end
  if type(value) == "table" and depth < 16 then
    for _, item in pairs(value) do
      if hasNonFinite(item, depth + 1) then
        return true
      end
    end
  end
  return false
end

-- The event as the service reads it (`player` gives the two platform fields), as JSON; or nil and a failure.
function LogQueue:encode(event)
  local body = {}
  for key, value in pairs(event) do
    if key ~= "player" then
      body[key] = value
    end
  end
  if event.player ~= nil then
    body.platform_username, body.platform_user_id = playerOf(event.player)
  end
  local http = self.link.http
  local ok, json = pcall(function()
    return http:JSONEncode(body)
  end)
  if not ok or type(json) ~= "string" then
    return nil, logFailure("invalid_event", "the event cannot be encoded as JSON (" .. tostring(json) .. "); nothing was queued")
  end
  if hasNonFinite(body, 0) then
    return nil, logFailure("invalid_event", "the event holds an infinite or NaN number, which JSON cannot; nothing was queued")
  end
  if #json > PresenceLink.LOG_EVENT_MAX_BYTES then
    return nil, logFailure("event_too_large", "the event is " .. #json .. " bytes of JSON, over " .. PresenceLink.LOG_EVENT_MAX_BYTES .. " (a description holds at most 4000 characters); nothing was queued")
  end
  return json
end

--- Queues an event (PresenceLink:log).
function LogQueue:add(category, event)
  if type(category) ~= "string" or LOG_PRIORITY[category] == nil then
    return logFailure("unknown_category", "unknown log category " .. string.format("%q", tostring(category)) .. ": use server, ingame or moderation; nothing was queued")
  end
  if type(event) ~= "table" then
    return logFailure("invalid_event", 'a log event is a table such as { event_type = "kick", description = "Exploiting" }, not a ' .. type(event) .. "; nothing was queued")
  end
  if self.closed then
    return logFailure("closed", "the server is closing and the log queue's last flush has ended; nothing was queued")
  end
  local json, err = self:encode(event)
  if json == nil then
    return err
  end
  self.stats.received = self.stats.received + 1
  if self.count >= self.capacity and not self:makeRoom(category) then
    self:countDrop("queue_full", category, 1)
    local dropped = logFailure("queue_full", "the log queue is full (" .. self.capacity .. " events, none of a lower category than " .. category .. "): this event was dropped")
    dropped.status = "dropped"
    return dropped
  end
  local q = self.waiting[category]
  q.last = q.last + 1
  q.items[q.last] = { json = json, at = self.link.clock() }
  self.waitingBytes[category] = self.waitingBytes[category] + #json
  self.count = self.count + 1
  self:start()
  return { ok = true, queued = true, category = category }
end

function LogQueue:countDrop(reason, category, n)
  self.stats.dropped[reason] = self.stats.dropped[reason] + n
  self.stats.droppedByCategory[category] = self.stats.droppedByCategory[category] + n
end

-- Room for an event of `category`: the newest waiting event of the lowest category below it is dropped. False when
-- every event waiting is at least as important (events already in a batch are never dropped for room).
function LogQueue:makeRoom(category)
  local categories = PresenceLink.LOG_CATEGORIES
  for i = #categories, 1, -1 do
    local lower = categories[i]
    if LOG_PRIORITY[lower] >= LOG_PRIORITY[category] then
      return false
    end
    local q = self.waiting[lower]
    if q.last >= q.first then
      local item = q.items[q.last]
      q.items[q.last] = nil
      q.last = q.last - 1
      self.waitingBytes[lower] = self.waitingBytes[lower] - #item.json
      self.count = self.count - 1
      self:countDrop("queue_full", lower, 1)
      return true
    end
  end
  return false
end

-- Drops events that left the queue for good: counted, and the service's refusals reported to onLogDropped.
function LogQueue:drop(reason, category, items, err, issues)
  self.count = self.count - #items
  self:countDrop(reason, category, #items)
  local callback = self.onDropped
  if callback == nil or not LOG_REPORTED[reason] then
    return
  end
  local link = self.link
  for _, item in ipairs(items) do
    local ok, event = pcall(function()
      return link.http:JSONDecode(item.json)
    end)
    local report = { reason = reason, category = category, event = ok and event or item.json, issues = issues, error = err }
    link.spawn(function()
      pcall(callback, report)
    end)
  end
end

-- Starts the flusher unless it runs. It ends when nothing is queued; the next log() starts it again.
function LogQueue:start()
  if self.running then
    return
  end
  self.running = true
  self.link.spawn(function()
    local ok, err = pcall(function()
      self:loop()
    end)
    self.running = false
    if not ok then
      self.stats.lastError = { kind = "log", detail = "the log flusher stopped on an error (the next log call starts it again): " .. tostring(err), at = self.link.clock() }
    end
  end)
end

function LogQueue:loop()
  local link = self.link
  while self.count > 0 do
    local batch, wait = self:next(link.clock())
    if batch ~= nil then
      self:send(batch)
    else
      link.sleep(math.max(0.02, math.min(wait, LOG_TICK_SECONDS)))
    end
  end
end

--- Sends what is queued (and what is logged meanwhile), highest category first, without the spacing (the budgets
--- still hold), until nothing is queued or `seconds` passed. True when nothing is left.
function LogQueue:flush(seconds)
  local link = self.link
  local deadline = link.clock() + (seconds or self.closeSeconds)
  self.flushing = self.flushing + 1
  if self.count > 0 then
    self:start()
  end
  while self.count > 0 and link.clock() < deadline do
    link.sleep(0.05)
  end
  self.flushing = self.flushing - 1
  return self.count == 0
end

--- The server is closing: flush for `seconds`, then drop what is left (shutdown) and queue nothing more. A batch on
--- its way when time runs out counts when its answer comes (sent, or dropped if refused).
function LogQueue:close(seconds)
  local empty = self:flush(seconds)
  self.closed = true
  if empty then
    return true
  end
  for _, category in ipairs(PresenceLink.LOG_CATEGORIES) do
    local q = self.waiting[category]
    local items = {}
    for i = q.first, q.last do
      table.insert(items, q.items[i])
    end
    self.waiting[category] = { first = 1, last = 0, items = {} }
    self.waitingBytes[category] = 0
    self:drop("shutdown", category, items, nil)
    local kept = {}
    for _, batch in ipairs(self.batches[category]) do
      if batch == self.inFlight then
        table.insert(kept, batch)
      else
        self:drop("shutdown", category, batch.events, nil)
      end
    end
    self.batches[category] = kept
  end
  return false
end

local function copyTable(source)
  local out = {}
  for key, value in pairs(source) do
    out[key] = value
  end
  return out
end

function LogQueue:snapshot()
  local stats = self.stats
  local queued = {}
  for _, category in ipairs(PresenceLink.LOG_CATEGORIES) do
    local q = self.waiting[category]
    local n = q.last - q.first + 1
    for _, batch in ipairs(self.batches[category]) do
      n = n + #batch.events
    end
    queued[category] = n
  end
  local droppedTotal = 0
  for _, n in pairs(stats.dropped) do
    droppedTotal = droppedTotal + n
  end
  return {
    queued = queued,
    queuedTotal = self.count,
    received = stats.received,
    sent = stats.sent,
    batches = stats.batches,
    dropped = copyTable(stats.dropped),
    droppedTotal = droppedTotal,
    droppedByCategory = copyTable(stats.droppedByCategory),
    retries = stats.retries,
    rateLimited = stats.rateLimited,
    lastError = stats.lastError,
    closed = self.closed,
  }
end

--- Queues a log event for `server`, `ingame` or `moderation` and returns at once: { ok = true, queued = true }, or a
--- failure with queued = false and errorCode unknown_category, invalid_event (not a table, or not JSON),
--- event_too_large, closed (after closeLogs), or queue_full (status "dropped": the queue holds logQueueSize events,
--- none of a lower category; counted). event: { event_type, description, platform_username, platform_user_id,
--- issued_by, code } (or `player = Player` for the two platform fields); the service checks the fields, and an event
--- it refuses is dropped and reported to onLogDropped.
function PresenceLink:log(category, event)
  return self.logs:add(category, event)
end

--- What the log queue did: { queued = { moderation, server, ingame } (waiting or on their way), queuedTotal,
--- received (events log() took), sent (stored by the service), batches, dropped = { queue_full, invalid, refused,
--- shutdown }, droppedTotal, droppedByCategory, retries (sends of a batch again under its key), rateLimited (429s),
--- lastError (the last failure, with kind = "log", category and at), closed }. received = sent + droppedTotal +
--- queuedTotal.
function PresenceLink:logStats()
  return self.logs:snapshot()
end

--- Sends what is queued now (and what is logged meanwhile), highest category first, without waiting for the 2 s
--- rhythm (the service's limits still hold), for at most `seconds` (logCloseSeconds). True when nothing is left.
function PresenceLink:flushLogs(seconds)
  return self.logs:flush(seconds)
end

--- What game:BindToClose calls (new() binds it unless bindToClose = false): flushLogs(seconds), then what is left is
--- dropped (counted as shutdown) and log() queues nothing more. True when everything was sent.
function PresenceLink:closeLogs(seconds)
  return self.logs:close(seconds)
end

-- The scheduling and sending methods (LogBatches).
for name, method in pairs(LogBatches) do
  LogQueue[name] = method
end

return {
  new = newLogQueue,
}
