--[[
PresenceLink/LogBatches: the log queue's batches: which category goes when (the budgets, the spacing, the back-off),
forming a batch under its own Idempotency-Key, sending it, and what each refusal does to it. Methods of LogQueue
(Logs.lua), which takes them all.
]]

local PresenceLink = require(script.Parent.Constants)

-- The bytes of {"events":[]} around the events.
local LOG_BODY_OVERHEAD = 13

-- A request counts against the budgets this much longer than the window: the service's window starts when a request
-- arrives, which network jitter moves.
local LOG_WINDOW_MARGIN = 1

local LogQueue = {}

-- The batch to send now, or nil and how long to wait before looking again.
function LogQueue:next(now)
  local wait = self:slotWait(now)
  if wait > 0 then
    return nil, wait
  end
  local category, dueIn = self:pick(now)
  if category == nil then
    return nil, dueIn
  end
  local batch = self.batches[category][1]
  local size = batch ~= nil and #batch.events or self:batchSize(category)
  local eventsWait = self:eventsWait(now, size)
  if eventsWait > 0 then
    return nil, eventsWait
  end
  return batch or self:form(category, size)
end

-- The requests of the last window (and LOG_WINDOW_MARGIN), each { at, n }.
function LogQueue:recent(now)
  local keep = {}
  for i = 1, #self.stamps do
    if self.stamps[i].at + self.window + LOG_WINDOW_MARGIN > now then
      table.insert(keep, self.stamps[i])
    end
  end
  self.stamps = keep
  return keep
end

-- Seconds until a request may go: the backoff after a failure, the governor (the server's HTTP budget, and a hold
-- the service asked for), the window's request budget and, except while flushing, the spacing.
function LogQueue:slotWait(now)
  local wait = math.max(0, self.retryAt - now, self.link.governor:waitFor("log", now))
  local stamps = self:recent(now)
  if #stamps >= self.requestsPerWindow then
    wait = math.max(wait, stamps[#stamps - self.requestsPerWindow + 1].at + self.window + LOG_WINDOW_MARGIN - now)
  end
  local rate = self.requestsPerWindow / self.window
  self.tokens = math.min(PresenceLink.LOG_BURST, self.tokens + (now - self.tokensAt) * rate)
  self.tokensAt = now
  if self.flushing == 0 and self.tokens < 1 then
    wait = math.max(wait, (1 - self.tokens) / rate)
  end
  return wait
end

-- Seconds until the window's event budget can take `size` more events.
function LogQueue:eventsWait(now, size)
  local stamps = self:recent(now)
  local used = 0
  for i = 1, #stamps do
    used = used + stamps[i].n
  end
  local freed = 0
  while self.eventsPerWindow - used < size and freed < #stamps do
    freed = freed + 1
    used = used - stamps[freed].n
  end
  if freed == 0 then
    return 0
  end
  return stamps[freed].at + self.window + LOG_WINDOW_MARGIN - now
end

-- How long the oldest event of a category has waited (nil when it has none).
function LogQueue:age(category, now)
  local batch = self.batches[category][1]
  if batch ~= nil then
    return now - batch.events[1].at
  end
  local q = self.waiting[category]
  if q.last >= q.first then
    return now - q.items[q.first].at
  end
  return nil
end

function LogQueue:full(category)
  local q = self.waiting[category]
  return q.last - q.first + 1 >= math.min(self.batchMax, self.eventsPerWindow)
    or self.waitingBytes[category] + LOG_BODY_OVERHEAD >= PresenceLink.LOG_BATCH_MAX_BYTES
end

-- The category whose batch goes next, or nil and the seconds until one is due. While flushing: the highest with
-- anything queued. Otherwise the highest holding a full batch, a batch to send again or an event waiting
-- LOG_URGENT_SECONDS; else, of those whose oldest event waited flushInterval, the one that waited longest.
function LogQueue:pick(now)
  local oldest, oldestAge, dueIn = nil, -1, self.flushInterval
  for _, category in ipairs(PresenceLink.LOG_CATEGORIES) do
    local age = self:age(category, now)
    if age ~= nil then
      if self.flushing > 0 or #self.batches[category] > 0 or self:full(category) or age >= PresenceLink.LOG_URGENT_SECONDS then
        return category
      end
      if age >= self.flushInterval and age > oldestAge then
        oldest, oldestAge = category, age
      end
      dueIn = math.min(dueIn, self.flushInterval - age)
    end
  end
  return oldest, dueIn
end

-- How many waiting events of a category the next batch takes: at most LOG_BATCH_MAX_EVENTS (and the window's event
-- budget), in a body of at most LOG_BATCH_MAX_BYTES.
function LogQueue:batchSize(category)
  local q = self.waiting[category]
  local limit = math.min(self.batchMax, self.eventsPerWindow, q.last - q.first + 1)
  local bytes = LOG_BODY_OVERHEAD
  local n = 0
  while n < limit do
    local size = #q.items[q.first + n].json
    if n > 0 then
      size = size + 1
      if bytes + size > PresenceLink.LOG_BATCH_MAX_BYTES then
        break
      end
    end
    bytes = bytes + size
    n = n + 1
  end
  return n
end

-- A fresh Idempotency-Key (HttpService:GenerateGUID).
function LogQueue:newKey()
  local http = self.link.http
  local ok, guid = pcall(function()
    return http:GenerateGUID(false)
  end)
  if ok and type(guid) == "string" and guid ~= "" then
    return "presence-link-log-" .. guid
  end
  self.keys = self.keys + 1
  return string.format("presence-link-log-%.0f-%d-%d", self.link.clock() * 1000, math.random(0, 2147483646), self.keys)
end

local function newBatch(queue, category, events)
  return { category = category, events = events, key = queue:newKey(), sends = 0 }
end

-- Takes the next `size` waiting events of a category into a batch with its own key.
function LogQueue:form(category, size)
  local q = self.waiting[category]
  local events = {}
  for i = 1, size do
    local item = q.items[q.first]
    q.items[q.first] = nil
    q.first = q.first + 1
    self.waitingBytes[category] = self.waitingBytes[category] - #item.json
    events[i] = item
  end
  if q.first > q.last then
    q.first, q.last = 1, 0
  end
  local batch = newBatch(self, category, events)
  table.insert(self.batches[category], batch)
  return batch
end

function LogQueue:remove(batch)
  local list = self.batches[batch.category]
  for i = 1, #list do
    if list[i] == batch then
      table.remove(list, i)
      return
    end
  end
end

function LogQueue:send(batch)
  local link = self.link
  local parts = {}
  for i = 1, #batch.events do
    parts[i] = batch.events[i].json
  end
  local body = '{"events":[' .. table.concat(parts, ",") .. "]}"
  self.inFlight = batch
  local response, err = link:request("log", "POST", "/log/" .. batch.category, body, true, { ["Idempotency-Key"] = batch.key })
  self.inFlight = nil
  if response == nil and err.held then
    return
  end
  local now = link.clock()
  -- Counted when the answer came (the service counted it on arrival, earlier): the window errs on the safe side.
  table.insert(self.stamps, { at = now, n = #batch.events })
  self.tokens = math.max(0, self.tokens - 1)
  if batch.sends > 0 then
    self.stats.retries = self.stats.retries + 1
  end
  batch.sends = batch.sends + 1
  if response ~= nil and response.StatusCode == 200 then
    self:remove(batch)
    self.count = self.count - #batch.events
    self.stats.sent = self.stats.sent + #batch.events
    self.stats.batches = self.stats.batches + 1
    self.failures = 0
    return
  end
  self:failed(batch, response, err, now)
end

-- `first` seconds doubled per failure in a row, at most `most`, ±25 % (servers that failed together retry apart).
function LogQueue:backoff(first, most)
  return math.min(most, first * 2 ^ (self.failures - 1)) * (0.75 + math.random() * 0.5)
end

-- A batch the service did not take: sent again (same key), split, cut down to its valid events, or dropped.
function LogQueue:failed(batch, response, err, now)
  local answer = nil
  if response ~= nil then
    err = self.link:failureOf(response, nil)
    answer = self.link:decode(response)
  end
  err.kind = "log"
  err.category = batch.category
  err.at = now
  -- The player-facing sentence of a failure is for binds.
  err.message = nil
  self.stats.lastError = err
  local status = err.httpStatus
  if self.closed then
    self:remove(batch)
    self:drop("shutdown", batch.category, batch.events, err)
  elseif status == 429 then
    self.stats.rateLimited = self.stats.rateLimited + 1
    self.failures = self.failures + 1
    self.retryAt = now + (err.retryAfter or self:backoff(1, PresenceLink.LOG_RETRY_MAX_SECONDS))
  elseif status == 0 or status == 408 or status >= 500 or err.errorCode == "body_incomplete" then
    self.failures = self.failures + 1
    self.retryAt = now + math.max(self:backoff(1, PresenceLink.LOG_RETRY_MAX_SECONDS), err.retryAfter or 0)
  elseif status == 401 then
    -- Kept: a key can be restored (a service whose Redis came back empty refuses valid keys until it copied them).
    self.failures = self.failures + 1
    self.retryAt = now + self:backoff(5, PresenceLink.LOG_UNAUTHORIZED_RETRY_SECONDS)
  elseif status == 422 and err.errorCode == "invalid_events" then
    self:dropInvalid(batch, answer, err)
  elseif status == 422 and err.errorCode == "idempotency_key_reused" then
    batch.key, batch.sends = self:newKey(), 0
  elseif (status == 413 or err.errorCode == "invalid_json") and #batch.events > 1 then
    -- invalid_json: the engine wrote something no parser reads; halving finds the event (then refused alone).
    self:split(batch, answer)
  else
    self:remove(batch)
    self:drop("refused", batch.category, batch.events, err)
  end
end

-- 422 invalid_events: the events it names (0-based `index`) are dropped and reported with their issues; the rest of
-- the batch goes again under a new key (the batch changed). A refusal that names none drops the batch.
function LogQueue:dropInvalid(batch, answer, err)
  local listed = answer ~= nil and type(answer.detail) == "table" and answer.detail.events or nil
  local bad, found = {}, 0
  if type(listed) == "table" then
    for _, entry in ipairs(listed) do
      local index = type(entry) == "table" and tonumber(entry.index) or nil
      if index ~= nil and batch.events[index + 1] ~= nil and bad[index + 1] == nil then
        bad[index + 1] = type(entry.issues) == "table" and entry.issues or {}
        found = found + 1
      end
    end
  end
  if found == 0 then
    self:remove(batch)
    self:drop("refused", batch.category, batch.events, err)
    return
  end
  err.detail = "the service refused " .. found .. " of the batch's " .. #batch.events .. " events (422 invalid_events): they are dropped and reported to onLogDropped, with their issues; the others go again"
  local kept = {}
  for i, item in ipairs(batch.events) do
    if bad[i] ~= nil then
      self:drop("invalid", batch.category, { item }, err, bad[i])
    else
      table.insert(kept, item)
    end
  end
  if #kept == 0 then
    self:remove(batch)
  else
    batch.events, batch.key, batch.sends = kept, self:newKey(), 0
  end
end

-- 413: the batch is more than the service takes. It becomes batches of at most the answer's max_events (the whole
-- log_events budget, when that is smaller than a batch: remembered for the batches to come), or two halves (a body
-- too large), each with its own key.
function LogQueue:split(batch, answer)
  local size = answer ~= nil and type(answer.detail) == "table" and tonumber(answer.detail.max_events) or nil
  if size ~= nil and size >= 1 and size < #batch.events then
    size = math.floor(size)
    self.batchMax = math.min(self.batchMax, size)
    self.eventsPerWindow = math.min(self.eventsPerWindow, size)
  else
    size = math.ceil(#batch.events / 2)
  end
  local pieces = {}
  for i, item in ipairs(batch.events) do
    local piece = math.floor((i - 1) / size) + 1
    pieces[piece] = pieces[piece] or {}
    table.insert(pieces[piece], item)
  end
  local list = self.batches[batch.category]
  for i = 1, #list do
    if list[i] == batch then
      table.remove(list, i)
      for p = #pieces, 1, -1 do
        table.insert(list, i, newBatch(self, batch.category, pieces[p]))
      end
      return
    end
  end
end

return LogQueue
