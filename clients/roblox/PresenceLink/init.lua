--[[
PresenceLink: the game-server side of presence-link, as one ModuleScript named `PresenceLink` directly in
ServerScriptService (game clients never see it; never put it in ReplicatedStorage). Any server script requires it there:

  local ServerScriptService = game:GetService("ServerScriptService")
  local PresenceLink = require(ServerScriptService:WaitForChild("PresenceLink"))
  local link = PresenceLink.new({
    baseUrl = "https://presence.example.com/api/v1",
    apiKey = HttpService:GetSecret("presence_link"),   -- a Secret (or a string, for Studio tests)
  })
  local result = link:bind(player, typedText)         -- result.ok, result.status, result.message, result.code
  local code = link:codeFor(player)                   -- a returning player's code, or nil
  local blocks, err = link:poll({ "K7QX", "AB12" })    -- one parsed block per code, its text filtered
  local watcher = link:watch({}, function(block) ... end)  -- then watcher:add(code, player), watcher:remove(code)
  link:log("ingame", { event_type = "player_join", description = "joined", player = player })  -- { queued = true }
  local stats = link:logStats()                        -- queued, sent, dropped by reason, retries, lastError

Text: every username and activity line handed to game code went through TextService:FilterStringAsync (from the
linked player) and TextFilterResult:GetNonChatStringForBroadcastAsync; text that could not be filtered is replaced by
PresenceLink.HIDDEN_TEXT, never shown raw (`rawText = true` in new() is for code that filters itself).
watch: in a live server, pushed changes arrive through MessagingService (topic "presence-link", which the service
publishes to through Open Cloud), with a slow reconcile poll; SSE and WebSocket streams work in Studio only
(HttpService:CreateWebStreamClient is "available in Studio only"), so watch tries them only in Studio.
Logs: log() queues and returns at once; a flusher sends batches of up to 100 events per category, paced inside the
service's log limits (28 requests and 2,800 events a minute), retries with the same Idempotency-Key, drops the
lowest category first when the queue is full, and sends what is left on game:BindToClose (the Logs section).

This ModuleScript has a child ModuleScript per concern: Constants (the PresenceLink table and its texts), Blocks (codes
and the block grammar), Http (requests, the governor, failures), Filter (TextService), Push (MessagingService),
Players (bind, returning players), Logs and LogBatches (the log queue), Watch and Streams (watch). Insert them together
(clients/roblox/PresenceLink.rbxmx), or paste clients/roblox/PresenceLink.single.lua, the same code as one script.
The project's tests run these files under Luau (luau-web) against the real service.
Everything returns values; nothing throws for an expected failure (a refused key, a rate limit, a network error).
See docs/roblox.md for the ten-minute guide and README.md next to this file for the reference.
]]

-- The child ModuleScripts, one per concern; each adds its functions and methods to the PresenceLink table (Constants).
local PresenceLink = require(script.Constants)
require(script.Blocks) -- isCode, codeCandidates, parseCallbacks, parseRpc
require(script.Players) -- bind, bindCode, codeFor
local Http = require(script.Http) -- request, decode, failureOf
local Filter = require(script.Filter) -- display
local Push = require(script.Push) -- watchedCodes
local Logs = require(script.Logs) -- log, logStats, flushLogs, closeLogs
local Watch = require(script.Watch) -- watch

local failure = Http.failure
local newGovernor = Http.newGovernor
local newTextFilter = Filter.new
local newPush = Push.new
local newLogQueue = Logs.new

------------------------------------------------------------------------------------------------------------------
-- The client

-- An engine service, or nil outside the engine (the tests hand every service in).
local function engineService(name)
  if game == nil then
    return nil
  end
  local ok, service = pcall(function()
    return game:GetService(name)
  end)
  if ok then
    return service
  end
  return nil
end

-- Wall time in seconds with millisecond precision (os.time counts whole seconds; os.clock is meant for benchmarks).
local function defaultClock()
  if DateTime ~= nil then
    return DateTime.now().UnixTimestampMillis / 1000
  end
  return os.time()
end

local function option(value, default)
  if value == nil then
    return default
  end
  return value
end

--- Creates a client. options: baseUrl (ending in /api/v1), apiKey (a Secret from HttpService:GetSecret, or a
--- string), and optionally requestsPerMinute (400), maxWaitSeconds (how long a call may wait for the governor, 5),
--- pollInterval (seconds between polls in watch without push or stream, 30), reconcileInterval (seconds between the
--- reconcile polls of a live server's push, 60), push (false: live servers poll instead), streamRetrySeconds (60),
--- stream ("sse", "websocket" or false; Studio only), rawText (true: no filtering, for code that filters itself),
--- hiddenText, filterConcurrency (4), filterCacheSize (1000), universeId and serverId (game.GameId, game.JobId); for
--- the log queue: logQueueSize (2000), logRequestsPerMinute (28), logEventsPerMinute (2800), logFlushInterval (2),
--- logCloseSeconds (25), onLogDropped(report) and bindToClose (false: call link:closeLogs() yourself); and the
--- engine's pieces for tests: httpService, textService, players, runService, messagingService, game (whose
--- BindToClose is used), clock, sleep, spawn, windowSeconds (the budgets' minute, 60).
function PresenceLink.new(options)
  assert(type(options) == "table", "PresenceLink.new needs an options table")
  assert(type(options.baseUrl) == "string" and string.find(options.baseUrl, "^https?://") ~= nil, "baseUrl must be an http(s) URL ending in /api/v1")
  assert(options.apiKey ~= nil, "apiKey is required: HttpService:GetSecret(name) or a string")
  local self = setmetatable({}, PresenceLink)
  self.baseUrl = string.gsub(options.baseUrl, "/+$", "")
  self.http = options.httpService or engineService("HttpService")
  self.clock = options.clock or defaultClock
  self.sleep = options.sleep or function(seconds)
    task.wait(seconds)
  end
  self.spawn = options.spawn or function(fn)
    task.spawn(fn)
  end
  self.maxWait = options.maxWaitSeconds or 5
  self.pollInterval = options.pollInterval or 30
  self.reconcileInterval = options.reconcileInterval or 60
  self.streamRetry = options.streamRetrySeconds or 60
  self.streamType = option(options.stream, "sse")
  self.runService = options.runService or engineService("RunService")
  self.players = options.players or engineService("Players")
  self.rawText = options.rawText == true
  self.hiddenText = options.hiddenText or PresenceLink.HIDDEN_TEXT
  -- The Roblox user id of the player each code is linked to, learnt from bind, codeFor, watcher:add and the players
  -- in this server: the `fromUserId` of the filter.
  self.userIds = {}
  self.watchers = {}
  -- A Secret cannot be read or concatenated as a string, only extended with AddPrefix; a string works for tests.
  if type(options.apiKey) == "string" then
    self.authorization = "Bearer " .. options.apiKey
  else
    self.authorization = options.apiKey:AddPrefix("Bearer ")
  end
  self.governor = newGovernor({
    requestsPerMinute = options.requestsPerMinute,
    windowSeconds = options.windowSeconds,
    clock = self.clock,
    sleep = self.sleep,
  })
  self.logs = newLogQueue(self, {
    size = options.logQueueSize,
    requestsPerMinute = options.logRequestsPerMinute,
    eventsPerMinute = options.logEventsPerMinute,
    flushInterval = options.logFlushInterval,
    closeSeconds = options.logCloseSeconds,
    onDropped = options.onLogDropped,
  })
  -- The server gives BindToClose functions 30 s: the log queue sends what it holds, highest category first.
  local dataModel = options.game or game
  if options.bindToClose ~= false and dataModel ~= nil then
    pcall(function()
      dataModel:BindToClose(function()
        self:closeLogs()
      end)
    end)
  end
  self.textFilter = newTextFilter(self, {
    service = options.textService or engineService("TextService"),
    concurrency = options.filterConcurrency,
    cacheSize = options.filterCacheSize,
  })
  self.push = newPush(self, {
    enabled = options.push ~= false,
    messaging = options.messagingService or engineService("MessagingService"),
    universeId = options.universeId or (game ~= nil and game.GameId or nil),
    serverId = options.serverId or (game ~= nil and game.JobId or nil),
  })
  return self
end

--- True in Roblox Studio (RunService:IsStudio()); false in a live game server, or when it cannot be told.
function PresenceLink:isStudio()
  if self.runService == nil then
    return false
  end
  local ok, studio = pcall(function()
    return self.runService:IsStudio()
  end)
  return ok and studio == true
end
------------------------------------------------------------------------------------------------------------------
-- Reading blocks

-- The distinct codes of a list, in order, split into requests of at most MAX_CODES_PER_REQUEST.
local function batches(codes)
  local seen = {}
  local out = {}
  local current = {}
  for i = 1, #codes do
    local code = codes[i]
    if PresenceLink.isCode(code) and not seen[code] then
      seen[code] = true
      table.insert(current, code)
      if #current == PresenceLink.MAX_CODES_PER_REQUEST then
        table.insert(out, current)
        current = {}
      end
    end
  end
  if #current > 0 then
    table.insert(out, current)
  end
  return out
end

-- The blocks of the codes as the service answers them (not filtered), or nil and a failure.
function PresenceLink:read(route, codes, parse)
  local blocks = {}
  local list = batches(codes or {})
  for b = 1, #list do
    local response, err = self:request(route, "GET", "/" .. route .. "/" .. table.concat(list[b], "&"), nil, false)
    if response == nil then
      return nil, err
    end
    if response.StatusCode ~= 200 then
      return nil, self:failureOf(response, nil)
    end
    local parsed, parseErr = parse(response.Body)
    if parsed == nil then
      parseErr.detail = "the response does not follow the block grammar at line " .. parseErr.line .. ": " .. parseErr.message
      parseErr.ok = false
      parseErr.status = "error"
      return nil, parseErr
    end
    for i = 1, #parsed do
      table.insert(blocks, parsed[i])
    end
  end
  return blocks
end

function PresenceLink:pollWith(route, codes, parse)
  local blocks, err = self:read(route, codes, parse)
  if blocks == nil then
    return nil, err
  end
  return (self:display(blocks))
end

--- Polls callbacks for a list of codes (one request per 200 distinct codes; malformed codes are skipped). Returns
--- the parsed blocks in request order, their text filtered (see display), or nil and a failure. Poll all players of
--- a server at once, every 30-60 s.
function PresenceLink:poll(codes)
  return self:pollWith("callbacks", codes, PresenceLink.parseCallbacks)
end

--- Polls rpc (activity only, an empty `activities` for anything else), filtered. Returns the blocks, or nil and a
--- failure.
function PresenceLink:pollRpc(codes)
  return self:pollWith("rpc", codes, PresenceLink.parseRpc)
end

PresenceLink.Watcher = Watch.Watcher

return PresenceLink
