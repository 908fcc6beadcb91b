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

Written in the part of Luau that Lua 5.1 also runs (no type annotations, no `continue`, no compound assignment, no
string interpolation), so the project's tests run this very file under lua5.1 against the real service.
Everything returns values; nothing throws for an expected failure (a refused key, a rate limit, a network error).
See docs/roblox.md for the ten-minute guide and README.md next to this file for the reference.
]]

local PresenceLink = {}
PresenceLink.__index = PresenceLink

PresenceLink.VERSION = "2.0.0"

-- Letters new codes never contain, and the digit a player meant (O is zero; I and a lowercase l are one).
PresenceLink.LOOK_ALIKES = { O = "0", I = "1", L = "1" }

-- What the service answers per request at most (MAX_CODES_PER_REQUEST); larger lists are split.
PresenceLink.MAX_CODES_PER_REQUEST = 200

-- Roblox allows 500 HTTP requests per minute per game server, shared by every script: keep some for the others.
PresenceLink.DEFAULT_REQUESTS_PER_MINUTE = 400

-- Player-facing texts for bind outcomes the service answers without a message.
PresenceLink.MESSAGES = {
  bound = "Linked! Your Discord activity now shows in this game.",
  already_bound = "This code is already linked to your account.",
  invalid_code = "Codes are 4 letters and digits, like K7QX. Type the code the Discord bot's /code command shows you.",
  not_found = "That code does not exist. Check it with the Discord bot's /code command.",
  rate_limited = "Too many tries. Wait a minute and try again.",
  unavailable = "Linking is not available right now. Try again in a minute.",
}

-- What each failing HTTP status means, for the developer (result.detail / err.detail).
PresenceLink.HTTP_HINTS = {
  [400] = "the service refused the request (400)",
  [401] = "the service refused the API key (401): check the Secret given to PresenceLink.new({ apiKey })",
  [403] = "the code is banned (403): only the service's staff can lift it",
  [404] = "no such code (404)",
  [409] = "the code is invalidated (409): its owner gets a new one in Discord with /unlink, then /code",
  [422] = "the service refused the request body (422): see detail.issues",
  [429] = "rate limited (429): nothing was lost; retry after retryAfter seconds",
  [502] = "the service could not reach Roblox to resolve the username (502); send platform_user_id",
  [503] = "the service is busy or restarting (503): retry after retryAfter seconds",
}

-- What a line of text shows when it could not be filtered (the filter failed, or the linked player is not in this
-- server): the raw text is never shown. `hiddenText` in new() replaces it.
PresenceLink.HIDDEN_TEXT = "(hidden)"

-- The status messages the service itself writes in `:` blocks (src/presence/model/blocks.ts): fixed texts, shown as
-- they are. Any other message is filtered like activity text.
PresenceLink.STATUS_MESSAGES = {
  ["Detection Paused"] = true,
  ["Code not found"] = true,
  ["Code not linked"] = true,
  ["This code is banned. Contact support for help."] = true,
  ["This code was invalidated. Contact support for help."] = true,
}

-- The MessagingService topic the service publishes to through Open Cloud (POST
-- /cloud/v2/universes/{universe}:publishMessage). A message is JSON: {"v":1,"blocks":{"AB12":"<callbacks block>"}} or,
-- when the changed blocks do not fit in 1 kB, {"v":1,"codes":["AB12",...]} (read those codes yourself).
PresenceLink.PUSH_TOPIC = "presence-link"

-- At most this many codes per push subscription (POST /push/subscriptions), as the service allows.
PresenceLink.MAX_PUSH_CODES = 200

-- After the service answers 404 push_target_not_found (the operator attached no Open Cloud key for this universe to
-- the API key), watch polls and asks again this many seconds later.
PresenceLink.PUSH_REFUSED_RETRY_SECONDS = 600

-- The filter's back-off after an error: 1 s, doubled per consecutive error, at most this long.
PresenceLink.FILTER_BACKOFF_MAX_SECONDS = 60

------------------------------------------------------------------------------------------------------------------
-- Codes

--- True when `value` is a code exactly as the service accepts it: 4 characters, A-Z or 0-9.
function PresenceLink.isCode(value)
  return type(value) == "string" and #value == 4 and string.find(value, "^[A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9]$") ~= nil
end

--- The codes to try for what a player typed, best first: spaces, tabs and dashes removed, uppercased, look-alikes
--- mapped to their twins (`oo1r` gives `001R`); then, when different, the uppercased text as typed, for codes issued
--- before the look-alike rule (`OOIR`). Empty when neither is a code. Same cases as src/codes/model/codes.ts.
function PresenceLink.codeCandidates(typed)
  if type(typed) ~= "string" then
    return {}
  end
  local plain = string.upper((string.gsub(typed, "[ \t\n\v\f\r%-]+", "")))
  local mapped = string.gsub(plain, "[OIL]", PresenceLink.LOOK_ALIKES)
  local out = {}
  if PresenceLink.isCode(mapped) then
    table.insert(out, mapped)
  end
  if plain ~= mapped and PresenceLink.isCode(plain) then
    table.insert(out, plain)
  end
  return out
end

------------------------------------------------------------------------------------------------------------------
-- Block parser: a line-by-line port of src/presence/model/parse-blocks.ts (the grammar is written there). Strict: anything it
-- accepts is exactly what the service sends; otherwise it returns nil and the first deviation.

local NO_ACTIVITY_LINE = "No activity detected;"
local UNLINKED_USERNAME = "(unlinked)"

local function parseError(line, message)
  return { kind = "parse", line = line, message = message }
end

-- Characters that text never contains: { } ; " , C0 controls and DEL, C1 controls (UTF-8 C2 80-9F), U+2028/2029.
local function hasUnsafeChar(text)
  return string.find(text, '[{};"%c\127]') ~= nil
    or string.find(text, "\194[\128-\159]") ~= nil
    or string.find(text, "\226\128[\168\169]") ~= nil
end

local function splitLines(text)
  local lines = {}
  if text == "" then
    return lines
  end
  local pos = 1
  while true do
    local nl = string.find(text, "\n", pos, true)
    if nl == nil then
      break
    end
    table.insert(lines, string.sub(text, pos, nl - 1))
    pos = nl + 1
  end
  if pos <= #text then
    return nil, parseError(#lines + 1, "the last line does not end with a newline (truncated response?)")
  end
  for i = 1, #lines do
    if string.find(lines[i], "\r", 1, true) then
      return nil, parseError(i, "carriage return found: lines end with \\n only")
    end
  end
  return lines
end

-- A cursor over the lines; every reader returns (value) or (nil, err).
local Cursor = {}
Cursor.__index = Cursor

local function newCursor(lines)
  return setmetatable({ lines = lines, index = 1 }, Cursor)
end

function Cursor:done()
  return self.index > #self.lines
end

function Cursor:peek(openedAt)
  local line = self.lines[self.index]
  if line == nil then
    return nil, parseError(self.index, "unexpected end of input: the block opened on line " .. openedAt .. " is not closed")
  end
  return line
end

function Cursor:next(openedAt)
  local line, err = self:peek(openedAt)
  if line ~= nil then
    self.index = self.index + 1
  end
  return line, err
end

local function checkText(text, line, what)
  if text == "" then
    return nil, parseError(line, "empty " .. what)
  end
  if hasUnsafeChar(text) then
    return nil, parseError(line, what .. " contains a character that text never contains")
  end
  return text
end

local function readHeader(cur)
  local openedAt = cur.index
  local line, err = cur:next(openedAt)
  if line == nil then
    return nil, err
  end
  local code, marker = string.match(line, "^{([A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9])([;:])$")
  if code == nil then
    return nil, parseError(openedAt, "expected a block header: { then a 4-character code of A-Z 0-9, then ; or :")
  end
  return { code = code, marker = marker, openedAt = openedAt }
end

local function readClose(cur, code, openedAt)
  local number = cur.index
  local line, err = cur:next(openedAt)
  if line == nil then
    return nil, err
  end
  if line ~= "}" then
    return nil, parseError(number, "expected } to close block {" .. code)
  end
  return true
end

local function readUsername(cur, openedAt)
  local number = cur.index
  local line, err = cur:next(openedAt)
  if line == nil then
    return nil, err
  end
  if line == "}" then
    return nil, parseError(number, "expected the username line before }")
  end
  if string.sub(line, -1) ~= ";" then
    return nil, parseError(number, "username line must end with ;")
  end
  return checkText(string.sub(line, 1, -2), number, "username")
end

local function readGroups(cur, openedAt)
  local groups = {}
  local open = {}
  while true do
    local peeked, err = cur:peek(openedAt)
    if peeked == nil then
      return nil, err
    end
    if peeked == "}" then
      break
    end
    local number = cur.index
    local line = cur:next(openedAt)
    local last = string.sub(line, -1)
    if last ~= "," and last ~= ";" then
      return nil, parseError(number, "activity line must end with , or ;")
    end
    local text, textErr = checkText(string.sub(line, 1, -2), number, "activity line")
    if text == nil then
      return nil, textErr
    end
    table.insert(open, text)
    if last == ";" then
      table.insert(groups, { lines = open })
      open = {}
    end
  end
  if #open > 0 then
    return nil, parseError(cur.index, "block closed inside an activity: the line before ends with , instead of ;")
  end
  return groups
end

local function readMessage(cur, openedAt)
  local number = cur.index
  local line, err = cur:next(openedAt)
  if line == nil then
    return nil, err
  end
  local message = string.match(line, '^"([^"]*)";$')
  if message == nil then
    return nil, parseError(number, 'expected a quoted message line: "message";')
  end
  return checkText(message, number, "message")
end

local function readCallbackBlock(cur)
  local header, err = readHeader(cur)
  if header == nil then
    return nil, err
  end
  local code, openedAt = header.code, header.openedAt
  if header.marker == ";" then
    local username, userErr = readUsername(cur, openedAt)
    if username == nil then
      return nil, userErr
    end
    local peeked, peekErr = cur:peek(openedAt)
    if peeked == nil then
      return nil, peekErr
    end
    local activities = {}
    if peeked == NO_ACTIVITY_LINE then
      cur:next(openedAt)
    elseif peeked == "}" then
      return nil, parseError(cur.index, 'expected activity lines or "' .. NO_ACTIVITY_LINE .. '" in block {' .. code)
    else
      local groups, groupErr = readGroups(cur, openedAt)
      if groups == nil then
        return nil, groupErr
      end
      activities = groups
    end
    local closed, closeErr = readClose(cur, code, openedAt)
    if closed == nil then
      return nil, closeErr
    end
    return { code = code, marker = ";", username = username, activities = activities }
  end
  local peeked, peekErr = cur:peek(openedAt)
  if peeked == nil then
    return nil, peekErr
  end
  if peeked == "}" then
    return nil, parseError(cur.index, "expected a quoted message line before }")
  end
  local username = nil
  if string.sub(peeked, 1, 1) ~= '"' then
    local text, userErr = readUsername(cur, openedAt)
    if text == nil then
      return nil, userErr
    end
    if text ~= UNLINKED_USERNAME then
      username = text
    end
  end
  local message, messageErr = readMessage(cur, openedAt)
  if message == nil then
    return nil, messageErr
  end
  local closed, closeErr = readClose(cur, code, openedAt)
  if closed == nil then
    return nil, closeErr
  end
  return { code = code, marker = ":", username = username, message = message }
end

local function readRpcBlock(cur)
  local header, err = readHeader(cur)
  if header == nil then
    return nil, err
  end
  if header.marker ~= ";" then
    return nil, parseError(header.openedAt, "rpc blocks always use ; after the code")
  end
  local groups, groupErr = readGroups(cur, header.openedAt)
  if groups == nil then
    return nil, groupErr
  end
  local closed, closeErr = readClose(cur, header.code, header.openedAt)
  if closed == nil then
    return nil, closeErr
  end
  return { code = header.code, activities = groups }
end

local function parseAll(text, readBlock)
  local lines, err = splitLines(text)
  if lines == nil then
    return nil, err
  end
  local cur = newCursor(lines)
  local blocks = {}
  while not cur:done() do
    local block, blockErr = readBlock(cur)
    if block == nil then
      return nil, blockErr
    end
    table.insert(blocks, block)
  end
  return blocks
end

--- Parses a callbacks response: a list of blocks, or nil and { kind = "parse", line, message }.
--- A block is { code, marker = ";", username, activities = { { lines = {...} }, ... } } (activities empty for
--- "No activity detected") or { code, marker = ":", username (nil when none or "(unlinked)"), message }.
function PresenceLink.parseCallbacks(text)
  return parseAll(text, readCallbackBlock)
end

--- Parses an rpc response: a list of { code, activities }, or nil and the first deviation.
function PresenceLink.parseRpc(text)
  return parseAll(text, readRpcBlock)
end

------------------------------------------------------------------------------------------------------------------
-- Request governor: one per PresenceLink. A sliding 60 s window keeps the server under its HTTP budget, and each
-- route is held back while the service said so (Retry-After on 429/503, or RateLimit-Remaining 0 until
-- RateLimit-Reset). A request that would have to wait longer than maxWaitSeconds is not sent at all: the caller
-- gets a `rate_limited` error with retryAfter instead.

local Governor = {}
Governor.__index = Governor

local function newGovernor(options)
  return setmetatable({
    limit = options.requestsPerMinute or PresenceLink.DEFAULT_REQUESTS_PER_MINUTE,
    window = options.windowSeconds or 60,
    clock = options.clock,
    sleep = options.sleep,
    stamps = {},
    heldUntil = {},
  }, Governor)
end

function Governor:prune(now)
  local keep = {}
  for i = 1, #self.stamps do
    if self.stamps[i] > now - self.window then
      table.insert(keep, self.stamps[i])
    end
  end
  self.stamps = keep
end

function Governor:waitFor(route, now)
  self:prune(now)
  local wait = 0
  local held = self.heldUntil[route]
  if held ~= nil and held > now then
    wait = held - now
  end
  if #self.stamps >= self.limit then
    local free = self.stamps[#self.stamps - self.limit + 1] + self.window - now
    if free > wait then
      wait = free
    end
  end
  return wait
end

--- Waits for a slot (at most maxWait seconds); true, or false and how long the caller would have had to wait.
function Governor:acquire(route, maxWait)
  local wait = self:waitFor(route, self.clock())
  if wait > 0 then
    if wait > maxWait then
      return false, wait
    end
    self.sleep(wait)
  end
  table.insert(self.stamps, self.clock())
  return true
end

local function header(response, name)
  if type(response.Headers) ~= "table" then
    return nil
  end
  for key, value in pairs(response.Headers) do
    if string.lower(key) == name then
      return value
    end
  end
  return nil
end

--- Learns from a response: Retry-After on 429 and 503, RateLimit-Remaining 0 until RateLimit-Reset.
function Governor:observe(route, response)
  local now = self.clock()
  local retryAfter = tonumber(header(response, "retry-after") or "")
  if (response.StatusCode == 429 or response.StatusCode == 503) and retryAfter ~= nil then
    self.heldUntil[route] = now + retryAfter
    return
  end
  if response.StatusCode == 429 then
    self.heldUntil[route] = now + 1
    return
  end
  local remaining = tonumber(header(response, "ratelimit-remaining") or "")
  local reset = tonumber(header(response, "ratelimit-reset") or "")
  if remaining ~= nil and remaining <= 0 and reset ~= nil then
    self.heldUntil[route] = now + reset
  end
end

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

-- The log queue's constructor, defined in the Logs section below (it uses failure and playerOf, defined after new).
local newLogQueue

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

local function failure(httpStatus, status, errorCode, message, detail, retryAfter)
  return {
    ok = false,
    httpStatus = httpStatus,
    status = status,
    errorCode = errorCode,
    message = message,
    detail = detail,
    retryAfter = retryAfter,
  }
end

-- Sends one request through the governor. `body` is a table (sent as JSON) or a string of JSON; `extraHeaders` are
-- added to the request's. Returns the response, or nil and a failure (`held = true` when nothing was sent).
function PresenceLink:request(route, method, path, body, authenticated, extraHeaders)
  local allowed, wait = self.governor:acquire(route, self.maxWait)
  if not allowed then
    local seconds = math.ceil(wait)
    local held = failure(429, "rate_limited", "rate_limited", PresenceLink.MESSAGES.rate_limited,
      "held back by PresenceLink's governor for " .. seconds .. " s (the service asked for it, or the server's HTTP budget is spent); nothing was sent", seconds)
    held.held = true
    return nil, held
  end
  local headers = {}
  for name, value in pairs(extraHeaders or {}) do
    headers[name] = value
  end
  if authenticated then
    headers.Authorization = self.authorization
  end
  local request = { Url = self.baseUrl .. path, Method = method, Headers = headers }
  if type(body) == "string" then
    headers["Content-Type"] = "application/json"
    request.Body = body
  elseif body ~= nil then
    headers["Content-Type"] = "application/json"
    request.Body = self.http:JSONEncode(body)
  end
  local sent, response = pcall(function()
    return self.http:RequestAsync(request)
  end)
  if not sent then
    return nil, failure(0, "error", "network", PresenceLink.MESSAGES.unavailable, "the request failed: " .. tostring(response))
  end
  self.governor:observe(route, response)
  return response
end

-- The JSON body of a response, or nil.
function PresenceLink:decode(response)
  if type(response.Body) ~= "string" or response.Body == "" then
    return nil
  end
  local ok, value = pcall(function()
    return self.http:JSONDecode(response.Body)
  end)
  if ok and type(value) == "table" then
    return value
  end
  return nil
end

-- A failure from an error response: the service's error code and message, and what the status means.
function PresenceLink:failureOf(response, playerMessage)
  local body = self:decode(response) or {}
  local detail = type(body.detail) == "table" and body.detail or {}
  local status = response.StatusCode
  local hint = PresenceLink.HTTP_HINTS[status] or ("unexpected HTTP " .. tostring(status))
  local serviceMessage = type(detail.message) == "string" and detail.message or nil
  local errorCode = detail.code
  if body.detail == nil and type(response.Body) == "string" and response.Body ~= "" then
    -- callbacks and rpc answer errors as one plain-text line, with the error code only in its wording.
    serviceMessage = string.gsub(response.Body, "%s+$", "")
    if status == 429 then
      errorCode = string.find(serviceMessage, "^too many unknown codes") and "unknown_code_budget" or "rate_limited"
    elseif status == 400 then
      errorCode = string.find(serviceMessage, "^too many codes") and "too_many_codes" or "no_usable_code"
    end
  end
  local retryAfter = tonumber(header(response, "retry-after") or "")
  local message = playerMessage
  if status == 429 then
    message = PresenceLink.MESSAGES.rate_limited
  elseif status >= 500 or status == 401 then
    message = PresenceLink.MESSAGES.unavailable
  end
  local text = hint
  if serviceMessage ~= nil then
    text = hint .. ": " .. serviceMessage
  end
  local result = failure(status, detail.status or "error", errorCode, message, text, retryAfter)
  result.issues = detail.issues
  result.serviceMessage = serviceMessage
  return result
end

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

------------------------------------------------------------------------------------------------------------------
-- Logs: a bounded queue in the game server, sent in batches (POST /log/{category} with {"events": [...]}). Kept in
-- this one section (the LogQueue class, then PresenceLink:log, logStats, flushLogs, closeLogs) so that it can be
-- lifted out whole. What it uses from the rest of the module: link.http (JSONEncode, JSONDecode, GenerateGUID),
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

-- The bytes of {"events":[]} around the events.
local LOG_BODY_OVERHEAD = 13

-- How often the flusher looks again while it waits (a batch filling up, a flush starting).
local LOG_TICK_SECONDS = 0.25

-- A request counts against the budgets this much longer than the window: the service's window starts when a request
-- arrives, which network jitter moves.
local LOG_WINDOW_MARGIN = 1

local LogQueue = {}
LogQueue.__index = LogQueue

newLogQueue = function(link, options)
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

------------------------------------------------------------------------------------------------------------------
-- watch. In a live server: pushed changes through MessagingService, and a reconcile poll every reconcileInterval
-- (polling every pollInterval while push is not working). In Studio: a stream when the service offers one (SSE or
-- WebSocket through HttpService:CreateWebStreamClient, which works in Studio only), polling otherwise.

local Watcher = {}
Watcher.__index = Watcher

-- How long a stream that just opened may take to deliver its first blocks before watch polls anyway.
local STREAM_FIRST_BLOCKS_SECONDS = 5

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

-- The block text of one stream message: SSE joins the event's data lines with LF (no final LF); a raw client may
-- pass the `data:` lines themselves.
local function messageText(message)
  local text = message
  if string.find(text, "^data:") then
    text = string.gsub(string.gsub(text, "\ndata: ?", "\n"), "^data: ?", "")
  end
  text = string.gsub(text, "\n+$", "")
  return text .. "\n"
end

function Watcher:onStreamMessage(message)
  if type(message) ~= "string" or message == "" then
    return
  end
  local text = message
  if string.sub(text, 1, 2) == '{"' then
    -- JSON, never a block (a block starts with "{" and a code): a WebSocket message {op = "block", code, block},
    -- an acknowledgement, or an error with the HTTP API's error code.
    local ok, value = pcall(function()
      return self.link.http:JSONDecode(text)
    end)
    if not ok or type(value) ~= "table" then
      return
    end
    if type(value.block) == "string" then
      text = value.block
    elseif value.op == "subscribed" or value.op == "unsubscribed" then
      return
    else
      -- {op = "error", code, message} on a WebSocket; an SSE `event: error` carries {code, message} as its data.
      self:report({ kind = "stream", errorCode = value.code, detail = "stream error " .. tostring(value.code) .. ": " .. tostring(value.message) })
      return
    end
  end
  local parse = PresenceLink.parseCallbacks
  if self.view == "rpc" then
    parse = PresenceLink.parseRpc
  end
  local blocks, err = parse(messageText(text))
  if blocks == nil then
    self:report(err)
    return
  end
  self.mode = "stream"
  self:deliverAll(blocks)
end

function Watcher:closeStream()
  local stream = self.stream
  self.stream = nil
  if not self.live then
    self.mode = "poll"
  end
  if stream ~= nil then
    for i = 1, #stream.connections do
      stream.connections[i]:Disconnect()
    end
    pcall(function()
      stream.client:Close()
    end)
  end
end

function Watcher:streamFailed(detail)
  self:closeStream()
  self.nextStreamTry = self.link.clock() + self.link.streamRetry
  -- Poll at once rather than at the end of the round the stream was expected to fill.
  self.dirty = true
  self:report({ kind = "stream", detail = detail })
end

-- Opens the stream (Studio only: live servers cannot hold one).
function Watcher:openStream()
  local link = self.link
  local list = self:list()
  if self.live or #list == 0 or link.streamType == false or link.http.CreateWebStreamClient == nil then
    return
  end
  local isSocket = link.streamType == "websocket"
  local url
  local kind
  if isSocket then
    url = string.gsub(link.baseUrl, "^http", "ws") .. "/ws"
    kind = Enum and Enum.WebStreamClientType and Enum.WebStreamClientType.WebSocket or "WebSocket"
  else
    url = link.baseUrl .. "/stream/" .. table.concat(list, "&")
    if self.view == "rpc" then
      url = url .. "?view=rpc"
    end
    kind = Enum and Enum.WebStreamClientType and Enum.WebStreamClientType.SSE or "SSE"
  end
  local ok, client = pcall(function()
    return link.http:CreateWebStreamClient(kind, { Url = url, Method = "GET" })
  end)
  if not ok or client == nil then
    self.nextStreamTry = link.clock() + link.streamRetry
    self:report({ kind = "stream", detail = "could not open a stream: " .. tostring(client) })
    return
  end
  local stream = { client = client, connections = {}, codes = list }
  self.stream = stream
  -- The service sends every code's block as soon as the stream opens; polling waits this long for them.
  self.streamDeadline = link.clock() + math.min(STREAM_FIRST_BLOCKS_SECONDS, link.pollInterval)
  table.insert(stream.connections, client.MessageReceived:Connect(function(message)
    if self.stream == stream then
      self:onStreamMessage(message)
    end
  end))
  table.insert(stream.connections, client.Error:Connect(function(statusCode, message)
    if self.stream == stream then
      self:streamFailed("stream error " .. tostring(statusCode) .. ": " .. tostring(message))
    end
  end))
  table.insert(stream.connections, client.Closed:Connect(function()
    if self.stream == stream then
      self:streamFailed("stream closed")
    end
  end))
  if isSocket then
    table.insert(stream.connections, client.Opened:Connect(function()
      if self.stream == stream then
        -- The codes watched now: one added while the connection was opening could not be sent then.
        self:send("subscribe", self:list())
      end
    end))
  end
end

function Watcher:send(op, codes)
  local stream = self.stream
  if stream == nil or codes == nil or #codes == 0 then
    return
  end
  local message = self.link.http:JSONEncode({ op = op, codes = codes })
  pcall(function()
    stream.client:Send(message)
  end)
end

-- Players joined or left: a WebSocket (un)subscribes in place; an SSE stream's codes are in its URL, so it is
-- reopened; polling picks the new list up at its next round; a live server declares the new list at once.
function Watcher:resubscribe(added, removed)
  if self.stream == nil then
    return
  end
  if self.link.streamType == "websocket" then
    self:send("subscribe", added)
    self:send("unsubscribe", removed)
  else
    self:closeStream()
    self.nextStreamTry = 0
    -- Reopened at once with the new list (a removal too: the loop may be asleep for a whole poll interval).
    self.dirty = true
  end
end

PresenceLink.Watcher = Watcher

return PresenceLink
