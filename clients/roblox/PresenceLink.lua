--[[
PresenceLink: the game-server side of presence-link, as one ModuleScript (put it in ServerScriptService or
ServerStorage; never in ReplicatedStorage, it holds the API key at run time).

Written in the part of Luau that Lua 5.1 also runs (no type annotations, no `continue`, no compound assignment, no
string interpolation), so the project's tests run this very file under lua5.1 against the real service.

  local PresenceLink = require(script.PresenceLink)
  local link = PresenceLink.new({
    baseUrl = "https://presence.example.com/api/v1",
    apiKey = HttpService:GetSecret("presence_link"),   -- a Secret (or a string, for Studio tests)
  })
  local result = link:bind(player, typedText)         -- result.ok, result.status, result.message
  local blocks, err = link:poll({ "K7QX", "AB12" })    -- one parsed block per code
  local watcher = link:watch({ "K7QX" }, function(block) ... end)  -- stream, falling back to polling

Everything returns values; nothing throws for an expected failure (a refused key, a rate limit, a network error).
See docs/roblox.md for the ten-minute guide and README.md next to this file for the reference.
]]

local PresenceLink = {}
PresenceLink.__index = PresenceLink

PresenceLink.VERSION = "1.0.0"

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
-- The client

local function defaultHttpService()
  return game:GetService("HttpService")
end

-- Wall time in seconds with millisecond precision (os.time counts whole seconds; os.clock is meant for benchmarks).
local function defaultClock()
  if DateTime ~= nil then
    return DateTime.now().UnixTimestampMillis / 1000
  end
  return os.time()
end

--- Creates a client. options: baseUrl (ending in /api/v1), apiKey (a Secret from HttpService:GetSecret, or a
--- string), and optionally requestsPerMinute (400), maxWaitSeconds (how long a call may wait for the governor, 5),
--- pollInterval (seconds between polls in watch, 30), streamRetrySeconds (60), stream ("sse", "websocket" or false),
--- httpService, clock, sleep, spawn (the engine's by default: HttpService, DateTime, task.wait, task.spawn).
function PresenceLink.new(options)
  assert(type(options) == "table", "PresenceLink.new needs an options table")
  assert(type(options.baseUrl) == "string" and string.find(options.baseUrl, "^https?://") ~= nil, "baseUrl must be an http(s) URL ending in /api/v1")
  assert(options.apiKey ~= nil, "apiKey is required: HttpService:GetSecret(name) or a string")
  local self = setmetatable({}, PresenceLink)
  self.baseUrl = string.gsub(options.baseUrl, "/+$", "")
  self.http = options.httpService or defaultHttpService()
  self.clock = options.clock or defaultClock
  self.sleep = options.sleep or function(seconds)
    task.wait(seconds)
  end
  self.spawn = options.spawn or function(fn)
    task.spawn(fn)
  end
  self.maxWait = options.maxWaitSeconds or 5
  self.pollInterval = options.pollInterval or 30
  self.streamRetry = options.streamRetrySeconds or 60
  if options.stream == nil then
    self.streamType = "sse"
  else
    self.streamType = options.stream
  end
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
  return self
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

-- Sends one request through the governor. Returns the response, or nil and a failure.
function PresenceLink:request(route, method, path, body, authenticated)
  local allowed, wait = self.governor:acquire(route, self.maxWait)
  if not allowed then
    local seconds = math.ceil(wait)
    return nil, failure(429, "rate_limited", "rate_limited", PresenceLink.MESSAGES.rate_limited,
      "held back by PresenceLink's governor for " .. seconds .. " s (the service asked for it, or the server's HTTP budget is spent); nothing was sent", seconds)
  end
  local headers = {}
  if authenticated then
    headers.Authorization = self.authorization
  end
  local request = { Url = self.baseUrl .. path, Method = method, Headers = headers }
  if body ~= nil then
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

local function playerOf(player)
  if type(player) == "table" or type(player) == "userdata" then
    return player.Name, player.UserId
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

--- Posts a log event to `server`, `ingame` or `moderation`. event: { event_type, description, platform_username,
--- platform_user_id, issued_by, code } (or `player = Player` for the two platform fields). Returns { ok = true } or a
--- failure.
function PresenceLink:log(category, event)
  local body = {}
  for key, value in pairs(event or {}) do
    if key ~= "player" then
      body[key] = value
    end
  end
  if event ~= nil and event.player ~= nil then
    body.platform_username, body.platform_user_id = playerOf(event.player)
  end
  local response, err = self:request("log", "POST", "/log/" .. tostring(category), body, true)
  if response == nil then
    return err
  end
  if response.StatusCode == 200 then
    return { ok = true, httpStatus = 200, status = "logged", category = category }
  end
  return self:failureOf(response, nil)
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

function PresenceLink:pollWith(route, codes, parse)
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

--- Polls callbacks for a list of codes (one request per 200 distinct codes; malformed codes are skipped). Returns
--- the parsed blocks in request order, or nil and a failure. Poll all players of a server at once, every 30-60 s.
function PresenceLink:poll(codes)
  return self:pollWith("callbacks", codes, PresenceLink.parseCallbacks)
end

--- Polls rpc (activity only, an empty `activities` for anything else). Returns the blocks, or nil and a failure.
function PresenceLink:pollRpc(codes)
  return self:pollWith("rpc", codes, PresenceLink.parseRpc)
end

------------------------------------------------------------------------------------------------------------------
-- watch: a stream when the engine and the service offer one, polling otherwise.

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

--- Watches codes and calls onBlock(block) with each code's block at first and whenever it changes. options: view
--- ("callbacks" or "rpc"). Returns a watcher with :add(code), :remove(code), :stop(), and .mode ("stream" or "poll").
function PresenceLink:watch(codes, onBlock, options)
  options = options or {}
  local w = setmetatable({
    link = self,
    onBlock = onBlock,
    view = options.view or "callbacks",
    codes = {},
    order = {},
    last = {},
    stopped = false,
    mode = "poll",
    stream = nil,
    streamCodes = nil,
    nextStreamTry = 0,
    onError = options.onError,
  }, Watcher)
  for i = 1, #(codes or {}) do
    w:add(codes[i])
  end
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

--- Starts watching a code (a player joined). Malformed codes are ignored.
function Watcher:add(code)
  if PresenceLink.isCode(code) and not self.codes[code] then
    self.codes[code] = true
    table.insert(self.order, code)
    -- A player who just linked should not wait a whole poll interval for their first block.
    self.dirty = true
    self:resubscribe({ code }, nil)
  end
end

--- Stops watching a code (a player left).
function Watcher:remove(code)
  if self.codes[code] then
    self.codes[code] = nil
    self.last[code] = nil
    local kept = {}
    for i = 1, #self.order do
      if self.order[i] ~= code then
        table.insert(kept, self.order[i])
      end
    end
    self.order = kept
    self:resubscribe(nil, { code })
  end
end

--- Stops everything: the stream is closed and polling ends.
function Watcher:stop()
  self.stopped = true
  self:closeStream()
end

function Watcher:deliver(block)
  if not self.codes[block.code] then
    return
  end
  local key = blockKey(block)
  if self.last[block.code] == key then
    return
  end
  self.last[block.code] = key
  local ok, err = pcall(self.onBlock, block)
  if not ok then
    self:report({ kind = "callback", detail = "onBlock failed: " .. tostring(err) })
  end
end

function Watcher:report(err)
  if self.onError ~= nil then
    pcall(self.onError, err)
  end
end

function Watcher:pollOnce()
  local list = self:list()
  if #list == 0 then
    return
  end
  local blocks, err
  if self.view == "rpc" then
    blocks, err = self.link:pollRpc(list)
  else
    blocks, err = self.link:poll(list)
  end
  if blocks == nil then
    self:report(err)
    return
  end
  for i = 1, #blocks do
    self:deliver(blocks[i])
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
  for i = 1, #blocks do
    self:deliver(blocks[i])
  end
end

function Watcher:closeStream()
  local stream = self.stream
  self.stream = nil
  self.mode = "poll"
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

function Watcher:openStream()
  local link = self.link
  local list = self:list()
  if #list == 0 or link.streamType == false or link.http.CreateWebStreamClient == nil then
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
-- reopened; polling picks the new list up at its next round.
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

function Watcher:run()
  local link = self.link
  while not self.stopped do
    -- Cleared before the round: a code added while this round's request is on its way makes the next one come soon.
    self.dirty = false
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
    -- Sleep until the next round, in steps of at most a second so a new code (add) is read within a second;
    -- codes added together within that second share one request.
    local nextRound = link.clock() + link.pollInterval
    if waitingForStream then
      nextRound = math.min(nextRound, self.streamDeadline)
    end
    while not self.stopped and not self.dirty and link.clock() < nextRound do
      link.sleep(math.min(1, nextRound - link.clock()))
    end
  end
end

PresenceLink.Watcher = Watcher

return PresenceLink
