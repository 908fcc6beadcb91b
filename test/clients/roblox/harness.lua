--[[
Test harness for clients/roblox/PresenceLink.lua under Lua 5.1: a stand-in for the parts of the Roblox engine the
module uses, written for these tests and talking to the real service over real sockets.

  HttpService    RequestAsync (lua-socket http), JSONEncode (as the engine's: an empty table is []) and JSONDecode
                 (lua-cjson), GenerateGUID, CreateWebStreamClient (SSE or WebSocket over a TCP socket, with
                 MessageReceived/Opened/Error/Closed signals and, on a WebSocket, Send; the WebSocket handshake checks
                 Sec-WebSocket-Accept with a pure-Lua SHA-1); a test can make it refuse requests (`refuse`) or lose
                 the answer of one the service did receive (`loseAnswer`)
  DataModel      BindToClose, and close(): runs the bound functions together and waits for them as the engine does
                 (at most 30 s)
  Secret         a value that prints as "Secret(presence_link)" and cannot be concatenated or compared; AddPrefix/AddSuffix only,
                 and only this HttpService can read it (as the engine does with HttpService:GetSecret)
  TextService    FilterStringAsync(text, fromUserId) then GetNonChatStringForBroadcastAsync(): both yield; the words of
                 a list are replaced by # as Roblox's filter does; it throws for a user not in the server, as the
                 engine does, and when told to fail; it counts calls, senders and calls at once
  Players        GetPlayers, GetPlayerByUserId over a list of { Name, UserId }
  RunService     IsStudio
  MessagingService  SubscribeAsync(topic, callback): reads what the sandbox's fake Open Cloud received
                 (GET /control/open-cloud/messages?universe_id=ID&after=SEQ) and calls back with {Data, Sent}, each
                 call a task of its own, as the engine does
  task           spawn and wait over coroutines, with a run loop that sleeps when every task waits
  pcall          as Luau's, the called function may yield (Lua 5.1's pcall cannot): the module's pcall around a
                 TextService or MessagingService call yields to the run loop as it does in the engine

Scenario scripts print one JSON line (Harness.emit) that the tap test asserts on.
]]

local here = string.match(arg and arg[0] or "", "^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. here .. "/../../../clients/roblox/?.lua;" .. package.path

local socket = require("socket")
local http = require("socket.http")
local url = require("socket.url")
local ltn12 = require("ltn12")
local cjson = require("cjson")
local mime = require("mime")

local Harness = {}

------------------------------------------------------------------------------------------------------------------
-- pcall that lets the called function yield, as Luau's does: the function runs in a coroutine of its own, and each of
-- its yields (a task's wake time) is passed up to the run loop.

local nativePcall = pcall

local function pack(...)
  return { n = select("#", ...), ... }
end

local function yieldingPcall(fn, ...)
  if type(fn) ~= "function" then
    return nativePcall(fn, ...)
  end
  local co = coroutine.create(fn)
  local results = pack(coroutine.resume(co, ...))
  while true do
    if not results[1] then
      return false, results[2]
    end
    if coroutine.status(co) == "dead" then
      return unpack(results, 1, results.n)
    end
    results = pack(coroutine.resume(co, coroutine.yield(unpack(results, 2, results.n))))
  end
end

pcall = yieldingPcall

-- WebSocket keys and masks are random, as a real client's.
math.randomseed(math.floor(socket.gettime() * 1000) % 2147483647)

------------------------------------------------------------------------------------------------------------------
-- Scheduler (task.spawn / task.wait)

local tasks = {}

function Harness.clock()
  return socket.gettime()
end

function Harness.spawn(fn)
  table.insert(tasks, { co = coroutine.create(fn), wake = 0 })
end

function Harness.sleep(seconds)
  local co, isMain = coroutine.running()
  if co == nil or isMain then
    socket.sleep(seconds)
    return
  end
  coroutine.yield(Harness.clock() + seconds)
end

--- Runs `main` as a task, with every task it spawns, until main ends; fails on any task's error.
function Harness.run(main)
  local done = false
  Harness.spawn(function()
    main()
    done = true
  end)
  while not done do
    local now = Harness.clock()
    local snapshot = {}
    for i = 1, #tasks do
      snapshot[i] = tasks[i]
    end
    for i = 1, #snapshot do
      local t = snapshot[i]
      if not done and t.wake <= now and coroutine.status(t.co) == "suspended" then
        local ok, wake = coroutine.resume(t.co)
        if not ok then
          error(debug.traceback(t.co, tostring(wake)), 0)
        end
        t.wake = wake or 0
      end
    end
    local alive = {}
    local nextWake = nil
    for i = 1, #tasks do
      if coroutine.status(tasks[i].co) ~= "dead" then
        table.insert(alive, tasks[i])
        if nextWake == nil or tasks[i].wake < nextWake then
          nextWake = tasks[i].wake
        end
      end
    end
    tasks = alive
    if not done and nextWake ~= nil and nextWake > Harness.clock() then
      socket.sleep(math.min(nextWake - Harness.clock(), 0.05))
    end
  end
  tasks = {}
end

------------------------------------------------------------------------------------------------------------------
-- Secret

local secretValues = setmetatable({}, { __mode = "k" })
local SecretMeta = {}
SecretMeta.__index = SecretMeta
-- As in the engine, printing a Secret shows its kind, never its value (a client that sent tostring(secret) would be
-- refused with 401).
SecretMeta.__tostring = function()
  return "Secret(presence_link)"
end
SecretMeta.__concat = function()
  error("a Secret cannot be concatenated; use AddPrefix or AddSuffix", 2)
end
SecretMeta.__eq = function()
  error("a Secret cannot be compared", 2)
end

local function newSecret(value)
  local s = setmetatable({}, SecretMeta)
  secretValues[s] = value
  return s
end

function SecretMeta:AddPrefix(prefix)
  assert(type(prefix) == "string", "AddPrefix takes a string")
  return newSecret(prefix .. secretValues[self])
end

function SecretMeta:AddSuffix(suffix)
  assert(type(suffix) == "string", "AddSuffix takes a string")
  return newSecret(secretValues[self] .. suffix)
end

--- What HttpService:GetSecret(name) returns in a game.
function Harness.secret(value)
  return newSecret(value)
end

local function reveal(value)
  if getmetatable(value) == SecretMeta then
    return secretValues[value]
  end
  return value
end

------------------------------------------------------------------------------------------------------------------
-- Signals

local function newSignal()
  local signal = { handlers = {} }
  function signal:Connect(fn)
    local entry = { fn = fn }
    table.insert(self.handlers, entry)
    return {
      Disconnect = function()
        entry.fn = nil
      end,
    }
  end
  function signal:Fire(...)
    for i = 1, #self.handlers do
      if self.handlers[i].fn ~= nil then
        self.handlers[i].fn(...)
      end
    end
  end
  return signal
end

--- A signal: Connect(fn) (a connection with Disconnect) and Fire(...).
Harness.signal = newSignal

------------------------------------------------------------------------------------------------------------------
-- HttpService

local HttpService = {}
HttpService.__index = HttpService

local wsFrame, readWebSocket

--- A fresh HttpService; `log` (optional) collects every request as { method, url, authorization, body,
--- idempotencyKey, at, status, retryAfter }. options.sourceAddress (a loopback address such as 127.0.0.2) makes its
--- requests come from there: another game server, with rate limits of its own.
function Harness.httpService(log, options)
  return setmetatable({ requests = log or {}, sourceAddress = options and options.sourceAddress }, HttpService)
end

-- As the engine's JSONEncode: a table with keys 1..n (or none) is an array, any other an object.
local function encodeJson(value)
  if type(value) ~= "table" then
    return cjson.encode(value)
  end
  local count = 0
  for _ in pairs(value) do
    count = count + 1
  end
  local parts = {}
  if count == #value then
    for i = 1, #value do
      parts[i] = encodeJson(value[i])
    end
    return "[" .. table.concat(parts, ",") .. "]"
  end
  for key, item in pairs(value) do
    table.insert(parts, cjson.encode(tostring(key)) .. ":" .. encodeJson(item))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function HttpService:JSONEncode(value)
  return encodeJson(value)
end

function HttpService:JSONDecode(text)
  return cjson.decode(text)
end

-- As the engine's: a random (version 4) UUID in capitals, in braces unless wrapInCurlyBraces is false.
function HttpService:GenerateGUID(wrapInCurlyBraces)
  local hex = "0123456789ABCDEF"
  local guid = string.gsub("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", "[xy]", function(c)
    local v = c == "x" and math.random(0, 15) or math.random(8, 11)
    return string.sub(hex, v + 1, v + 1)
  end)
  if wrapInCurlyBraces == false then
    return guid
  end
  return "{" .. guid .. "}"
end

function HttpService:RequestAsync(request)
  assert(type(request.Url) == "string", "RequestAsync needs a Url")
  local method = request.Method or "GET"
  local headers = {}
  for key, value in pairs(request.Headers or {}) do
    headers[string.lower(key)] = reveal(value)
  end
  if request.Body ~= nil then
    assert(method ~= "GET", "a GET request cannot have a body")
    headers["content-length"] = tostring(#request.Body)
  end
  local key = headers["idempotency-key"]
  if self.refuse ~= nil and self.refuse(request) then
    table.insert(self.requests, { method = method, url = request.Url, refused = true, idempotencyKey = key, body = request.Body, at = Harness.clock() })
    error("HttpError: ConnectFail (refused by the test)")
  end
  local record = { method = method, url = request.Url, authorization = headers.authorization, body = request.Body, idempotencyKey = key, at = Harness.clock() }
  table.insert(self.requests, record)
  local chunks = {}
  local source = self.sourceAddress
  local ok, status, responseHeaders, statusLine = http.request({
    url = request.Url,
    method = method,
    headers = headers,
    source = request.Body and ltn12.source.string(request.Body) or nil,
    sink = ltn12.sink.table(chunks),
    create = source and function()
      local sock = socket.tcp()
      assert(sock:bind(source, 0))
      return sock
    end or nil,
  })
  if ok == nil then
    error("HttpError: " .. tostring(status))
  end
  record.status = status
  record.retryAfter = tonumber((responseHeaders or {})["retry-after"] or "")
  if self.loseAnswer ~= nil and self.loseAnswer(request) then
    record.answerLost = true
    error("HttpError: Timedout (the test dropped the answer after the service sent it)")
  end
  return {
    Success = status >= 200 and status < 300,
    StatusCode = status,
    StatusMessage = string.match(statusLine or "", "^HTTP/%S+ %d+ (.*)$") or "",
    Headers = responseHeaders or {},
    Body = table.concat(chunks),
  }
end

------------------------------------------------------------------------------------------------------------------
-- WebSocket (RFC 6455) pieces: Lua 5.1 has no bit operations, so they are done on numbers, bit by bit (only the
-- handshake's SHA-1 and the client frames' masking need them, on a few bytes).

local TWO32 = 4294967296

local function bitwise(a, b, bits, keep)
  local result, place = 0, 1
  for _ = 1, bits do
    local x, y = a % 2, b % 2
    if keep(x, y) then
      result = result + place
    end
    a, b, place = (a - x) / 2, (b - y) / 2, place * 2
  end
  return result
end
local function isAnd(x, y)
  return x == 1 and y == 1
end
local function isOr(x, y)
  return x == 1 or y == 1
end
local function isXor(x, y)
  return x ~= y
end
local function band(a, b)
  return bitwise(a, b, 32, isAnd)
end
local function bor(a, b)
  return bitwise(a, b, 32, isOr)
end
local function bxor(a, b)
  return bitwise(a, b, 32, isXor)
end
local function rol(a, n)
  return (a * 2 ^ n) % TWO32 + math.floor(a / 2 ^ (32 - n))
end

--- SHA-1 of a string, as 20 raw bytes (FIPS 180-4).
function Harness.sha1(message)
  local length = #message
  message = message .. "\128" .. string.rep("\0", (55 - length) % 64)
  local bits = length * 8
  local tail = {}
  for i = 8, 1, -1 do
    tail[i] = string.char(bits % 256)
    bits = math.floor(bits / 256)
  end
  message = message .. table.concat(tail)
  local h = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 }
  for chunk = 1, #message, 64 do
    local w = {}
    for i = 0, 15 do
      local b1, b2, b3, b4 = string.byte(message, chunk + i * 4, chunk + i * 4 + 3)
      w[i] = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    end
    for i = 16, 79 do
      w[i] = rol(bxor(bxor(bxor(w[i - 3], w[i - 8]), w[i - 14]), w[i - 16]), 1)
    end
    local a, b, c, d, e = h[1], h[2], h[3], h[4], h[5]
    for i = 0, 79 do
      local f, k
      if i < 20 then
        f, k = bor(band(b, c), band(TWO32 - 1 - b, d)), 0x5A827999
      elseif i < 40 then
        f, k = bxor(bxor(b, c), d), 0x6ED9EBA1
      elseif i < 60 then
        f, k = bor(bor(band(b, c), band(b, d)), band(c, d)), 0x8F1BBCDC
      else
        f, k = bxor(bxor(b, c), d), 0xCA62C1D6
      end
      local temp = (rol(a, 5) + f + e + k + w[i]) % TWO32
      e, d, c, b, a = d, c, rol(b, 30), a, temp
    end
    h[1], h[2], h[3], h[4], h[5] = (h[1] + a) % TWO32, (h[2] + b) % TWO32, (h[3] + c) % TWO32, (h[4] + d) % TWO32, (h[5] + e) % TWO32
  end
  local out = {}
  for i = 1, 5 do
    local v = h[i]
    for j = 4, 1, -1 do
      out[(i - 1) * 4 + j] = string.char(v % 256)
      v = math.floor(v / 256)
    end
  end
  return table.concat(out)
end

--- Sec-WebSocket-Accept for a Sec-WebSocket-Key.
function Harness.websocketAccept(key)
  return (mime.b64(Harness.sha1(key .. "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")))
end

local function randomBytes(n)
  local out = {}
  for i = 1, n do
    out[i] = string.char(math.random(0, 255))
  end
  return table.concat(out)
end

-- A client frame: FIN, the opcode, the length, and the payload masked with a random key (a server must refuse an
-- unmasked client frame).
wsFrame = function(opcode, payload)
  local n = #payload
  local head
  if n < 126 then
    head = string.char(128 + opcode, 128 + n)
  elseif n < 65536 then
    head = string.char(128 + opcode, 128 + 126, math.floor(n / 256), n % 256)
  else
    local bytes = {}
    local rest = n
    for i = 8, 1, -1 do
      bytes[i] = string.char(rest % 256)
      rest = math.floor(rest / 256)
    end
    head = string.char(128 + opcode, 128 + 127) .. table.concat(bytes)
  end
  local mask = randomBytes(4)
  local masked = {}
  for i = 1, n do
    masked[i] = string.char(bitwise(string.byte(payload, i), string.byte(mask, (i - 1) % 4 + 1), 8, isXor))
  end
  return head .. mask .. table.concat(masked)
end

-- The upgrade, then server frames: text messages fire MessageReceived (fragments joined), pings are answered, a
-- close is answered and, unless normal (1000), fires Error with its status and reason.
readWebSocket = function(client, sock, host, path)
  local key = mime.b64(randomBytes(16))
  sock:send("GET " .. path .. " HTTP/1.1\r\nHost: " .. host .. "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    .. "Sec-WebSocket-Key: " .. key .. "\r\nSec-WebSocket-Version: 13\r\n\r\n")
  sock:settimeout(0)
  local buffer = ""
  local fragments = {}
  while not client.closed do
    local piece, recvErr, partial = sock:receive(8192)
    piece = piece or partial
    if piece ~= nil and piece ~= "" then
      buffer = buffer .. piece
    elseif recvErr == "closed" then
      return
    else
      Harness.sleep(0.02)
    end
    if not client.open then
      local head, rest = string.match(buffer, "^(.-)\r\n\r\n(.*)$")
      if head ~= nil then
        local status = tonumber(string.match(head, "^HTTP/%S+ (%d+)"))
        local accept = string.match(string.lower(head), "\r\nsec%-websocket%-accept: *([^\r\n]*)")
        if status ~= 101 then
          client.Error:Fire(status or 0, "the WebSocket upgrade was refused (HTTP " .. tostring(status) .. ")")
          return
        end
        if accept ~= string.lower(Harness.websocketAccept(key)) then
          client.Error:Fire(status, "wrong Sec-WebSocket-Accept")
          return
        end
        buffer = rest
        client.open = true
        client.Opened:Fire(status)
      end
    end
    while client.open and not client.closed and #buffer >= 2 do
      local b1, b2 = string.byte(buffer, 1, 2)
      local opcode = b1 % 16
      local n = b2 % 128
      local start = 3
      if n == 126 then
        if #buffer < 4 then
          break
        end
        n = string.byte(buffer, 3) * 256 + string.byte(buffer, 4)
        start = 5
      elseif n == 127 then
        if #buffer < 10 then
          break
        end
        n = 0
        for i = 3, 10 do
          n = n * 256 + string.byte(buffer, i)
        end
        start = 11
      end
      if #buffer < start - 1 + n then
        break
      end
      local payload = string.sub(buffer, start, start + n - 1)
      buffer = string.sub(buffer, start + n)
      if opcode == 1 or opcode == 0 then
        table.insert(fragments, payload)
        if b1 >= 128 then
          local message = table.concat(fragments)
          fragments = {}
          client.MessageReceived:Fire(message)
        end
      elseif opcode == 9 then
        sock:settimeout(2)
        sock:send(wsFrame(10, payload))
        sock:settimeout(0)
      elseif opcode == 8 then
        local status = 1005
        if #payload >= 2 then
          status = string.byte(payload, 1) * 256 + string.byte(payload, 2)
        end
        sock:settimeout(2)
        sock:send(wsFrame(8, string.sub(payload, 1, 2)))
        client.open = false
        if status ~= 1000 then
          client.Error:Fire(status, string.sub(payload, 3))
        end
        return
      end
    end
  end
end

local readSse

-- An SSE client over a raw socket: status line, headers, then (chunked or plain) event-stream body. Events fire
-- MessageReceived with their data lines joined by LF, as EventSource does.
function HttpService:CreateWebStreamClient(kind, options)
  local client = {
    MessageReceived = newSignal(),
    Opened = newSignal(),
    Error = newSignal(),
    Closed = newSignal(),
    closed = false,
  }
  local requests = self.requests
  table.insert(requests, { method = "STREAM", url = options.Url, kind = kind })
  function client:Close()
    if not self.closed then
      self.closed = true
      if self.open then
        self.open = false
        pcall(function()
          self.sock:settimeout(1)
          self.sock:send(wsFrame(8, string.char(3, 232)))
        end)
      end
      if self.sock ~= nil then
        self.sock:close()
      end
      self.Closed:Fire()
    end
  end
  function client:Send(message)
    if kind ~= "WebSocket" then
      error("Send works only on WebSocket clients")
    end
    if not self.open or self.closed then
      error("the WebSocket is not open")
    end
    table.insert(requests, { method = "SEND", url = message })
    self.sock:settimeout(2)
    self.sock:send(wsFrame(1, message))
    self.sock:settimeout(0)
  end
  Harness.spawn(function()
    local parsed = url.parse(options.Url)
    local sock = socket.tcp()
    client.sock = sock
    sock:settimeout(2)
    local ok, err = sock:connect(parsed.host, tonumber(parsed.port) or 80)
    if not ok then
      client.Error:Fire(0, tostring(err))
      client:Close()
      return
    end
    local path = parsed.path or "/"
    if parsed.query then
      path = path .. "?" .. parsed.query
    end
    if kind == "WebSocket" then
      readWebSocket(client, sock, parsed.host .. ":" .. tostring(parsed.port), path)
    else
      readSse(client, sock, parsed.host, path)
    end
    client:Close()
  end)
  return client
end

readSse = function(client, sock, host, path)
  sock:send("GET " .. path .. " HTTP/1.1\r\nHost: " .. host .. "\r\nAccept: text/event-stream\r\n\r\n")
  sock:settimeout(0)
  local buffer = ""
  local status, chunked, chunkEnd = nil, false, false
  local body = ""
  local data = {}
  while not client.closed do
    local piece, recvErr, partial = sock:receive(8192)
    piece = piece or partial
    if piece ~= nil and piece ~= "" then
      buffer = buffer .. piece
    elseif recvErr == "closed" then
      break
    else
      Harness.sleep(0.02)
    end
    if status == nil then
      local head, rest = string.match(buffer, "^(.-)\r\n\r\n(.*)$")
      if head ~= nil then
        status = tonumber(string.match(head, "^HTTP/%S+ (%d+)"))
        chunked = string.find(string.lower(head), "transfer%-encoding: chunked") ~= nil
        buffer = rest
        if status ~= 200 or not string.find(string.lower(head), "content%-type: text/event%-stream") then
          client.Error:Fire(status or 0, "not an event stream (HTTP " .. tostring(status) .. ")")
          return
        end
        client.Opened:Fire(status)
      end
    end
    if status ~= nil then
      if chunked then
        -- A chunk's data is read as soon as it is there: the CRLF that ends it may come only with the next write
        -- (the front sends it with the next chunk, so waiting for it would hold every event back by one).
        while true do
          if chunkEnd then
            if #buffer < 2 then
              break
            end
            buffer = string.sub(buffer, 3)
            chunkEnd = false
          end
          local size, after = string.match(buffer, "^(%x+)[^\r\n]*\r\n()")
          if size == nil then
            break
          end
          local n = tonumber(size, 16)
          if #buffer < after - 1 + n then
            break
          end
          body = body .. string.sub(buffer, after, after + n - 1)
          buffer = string.sub(buffer, after + n)
          chunkEnd = true
        end
      else
        body = body .. buffer
        buffer = ""
      end
      while true do
        local line, rest = string.match(body, "^(.-)\r?\n(.*)$")
        if line == nil then
          break
        end
        body = rest
        if line == "" then
          if #data > 0 then
            client.MessageReceived:Fire(table.concat(data, "\n"))
            data = {}
          end
        elseif string.sub(line, 1, 5) == "data:" then
          local value = string.sub(line, 6)
          if string.sub(value, 1, 1) == " " then
            value = string.sub(value, 2)
          end
          table.insert(data, value)
        end
      end
    end
  end
end

------------------------------------------------------------------------------------------------------------------
-- TextService, Players, RunService, MessagingService

--- The words the stand-in TextService censors unless told others.
Harness.CENSORED = { "badword", "frick" }

local function censor(text, words)
  local lower = string.lower(text)
  local out = text
  for _, word in ipairs(words) do
    local start = 1
    while true do
      local i, j = string.find(lower, string.lower(word), start, true)
      if i == nil then
        break
      end
      out = string.sub(out, 1, i - 1) .. string.rep("#", j - i + 1) .. string.sub(out, j + 1)
      start = j + 1
    end
  end
  return out
end

--- A TextService. options: words (Harness.CENSORED), players (FilterStringAsync throws for a user not among them),
--- delay (seconds each call yields, 0.01). Set `fail` to "filter" or "result" to make FilterStringAsync or
--- GetNonChatStringForBroadcastAsync throw. It records calls, inFlight/maxInFlight, fromUserIds and texts.
function Harness.textService(options)
  options = options or {}
  local service = {
    words = options.words or Harness.CENSORED,
    players = options.players,
    delay = options.delay or 0.01,
    fail = nil,
    calls = 0,
    inFlight = 0,
    maxInFlight = 0,
    fromUserIds = {},
    texts = {},
  }
  function service:FilterStringAsync(text, fromUserId)
    assert(type(text) == "string", "FilterStringAsync: the text must be a string")
    assert(type(fromUserId) == "number", "FilterStringAsync: fromUserId must be a number")
    self.calls = self.calls + 1
    table.insert(self.fromUserIds, fromUserId)
    table.insert(self.texts, text)
    self.inFlight = self.inFlight + 1
    if self.inFlight > self.maxInFlight then
      self.maxInFlight = self.inFlight
    end
    Harness.sleep(self.delay)
    if self.fail == "filter" then
      self.inFlight = self.inFlight - 1
      error("TextService:FilterStringAsync failed (the test made it fail)")
    end
    if self.players ~= nil and self.players:GetPlayerByUserId(fromUserId) == nil then
      self.inFlight = self.inFlight - 1
      error("TextService:FilterStringAsync: user " .. tostring(fromUserId) .. " is not online on this server")
    end
    local filtered = censor(text, self.words)
    return {
      GetNonChatStringForBroadcastAsync = function()
        Harness.sleep(0)
        service.inFlight = service.inFlight - 1
        if service.fail == "result" then
          error("TextFilterResult:GetNonChatStringForBroadcastAsync failed (the test made it fail)")
        end
        return filtered
      end,
    }
  end
  return service
end

--- Players over a list of { Name, UserId }; join(player) and leave(userId) change it.
function Harness.players(list)
  local players = { list = {} }
  for i = 1, #(list or {}) do
    players.list[i] = { Name = list[i].Name, UserId = list[i].UserId }
  end
  function players:GetPlayers()
    local out = {}
    for i = 1, #self.list do
      out[i] = self.list[i]
    end
    return out
  end
  function players:GetPlayerByUserId(userId)
    for i = 1, #self.list do
      if self.list[i].UserId == userId then
        return self.list[i]
      end
    end
    return nil
  end
  function players:join(player)
    table.insert(self.list, player)
    return player
  end
  function players:leave(userId)
    local kept = {}
    for i = 1, #self.list do
      if self.list[i].UserId ~= userId then
        table.insert(kept, self.list[i])
      end
    end
    self.list = kept
  end
  return players
end

--- The players of env PLAYERS ("Name:UserId,Name:UserId"), or none.
function Harness.playersFromEnv()
  local list = {}
  for name, id in string.gmatch(os.getenv("PLAYERS") or "", "([%w_]+):(%d+)") do
    table.insert(list, { Name = name, UserId = tonumber(id) })
  end
  return list
end

--- A RunService whose IsStudio() answers `studio`.
function Harness.runService(studio)
  return {
    IsStudio = function()
      return studio
    end,
  }
end

-- Unix seconds of an ISO 8601 UTC time ("2026-11-25T10:00:00.123Z"), by the days-from-civil count.
function Harness.unixSeconds(iso)
  local y, mo, d, h, mi, sec = string.match(iso or "", "^(%d+)-(%d+)-(%d+)T(%d+):(%d+):([%d%.]+)")
  if y == nil then
    return nil
  end
  y, mo = tonumber(y), tonumber(mo)
  if mo <= 2 then
    y = y - 1
  end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + tonumber(d) - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec)
end

-- What the fake Open Cloud received for a universe after `after` (OPEN_CLOUD_CONTROL_URL, else CONTROL_URL, then
-- /open-cloud/messages), or nil and why.
local function openCloudMessages(universeId, after)
  local control = os.getenv("OPEN_CLOUD_CONTROL_URL") or Harness.env("CONTROL_URL")
  local target = control .. "/open-cloud/messages?universe_id=" .. string.format("%.0f", universeId)
  if after ~= nil then
    target = target .. "&after=" .. string.format("%.0f", after)
  end
  local chunks = {}
  local ok, status = http.request({ url = target, sink = ltn12.sink.table(chunks) })
  if ok == nil or status ~= 200 then
    return nil, "GET " .. target .. ": " .. tostring(status)
  end
  local decoded = cjson.decode(table.concat(chunks))
  return decoded.messages
end

--- A MessagingService for `universeId`: SubscribeAsync(topic, callback) receives what the sandbox's fake Open Cloud
--- is given from then on, every `interval` seconds (0.05). Set `fail` to make SubscribeAsync throw. It records
--- `topics` subscribed and `delivered` (messages called back).
function Harness.messagingService(options)
  options = options or {}
  local service = { universeId = options.universeId, interval = options.interval or 0.05, fail = nil, topics = {}, delivered = 0 }
  function service:SubscribeAsync(topic, callback)
    Harness.sleep(0)
    if self.fail then
      error("MessagingService:SubscribeAsync failed (the test made it fail)")
    end
    assert(type(topic) == "string" and #topic >= 1 and #topic <= 80, "topics are 1-80 characters")
    local messages = assert(openCloudMessages(self.universeId, nil))
    local after = 0
    for i = 1, #messages do
      after = math.max(after, messages[i].seq)
    end
    local connection = { Connected = true }
    function connection:Disconnect()
      self.Connected = false
    end
    table.insert(self.topics, topic)
    Harness.spawn(function()
      while connection.Connected do
        local list = openCloudMessages(self.universeId, after) or {}
        for i = 1, #list do
          local m = list[i]
          if m.seq > after then
            after = m.seq
            if connection.Connected and m.topic == topic then
              self.delivered = self.delivered + 1
              Harness.spawn(function()
                callback({ Data = m.message, Sent = Harness.unixSeconds(m.at) })
              end)
            end
          end
        end
        Harness.sleep(self.interval)
      end
    end)
    return connection
  end
  return service
end

--- A DataModel (`game`) for BindToClose: close(limit) runs every bound function as a task of its own, as the engine
--- does when a server shuts down, and returns when all have ended or after `limit` seconds (30), with the seconds it
--- took and whether all ended.
function Harness.dataModel()
  local model = { bound = {} }
  function model:BindToClose(fn)
    assert(type(fn) == "function", "BindToClose takes a function")
    table.insert(self.bound, fn)
  end
  function model:close(limit)
    local started = Harness.clock()
    local done = 0
    for i = 1, #self.bound do
      local fn = self.bound[i]
      Harness.spawn(function()
        fn()
        done = done + 1
      end)
    end
    local deadline = started + (limit or 30)
    while done < #self.bound and Harness.clock() < deadline do
      Harness.sleep(0.02)
    end
    return { seconds = Harness.clock() - started, finished = done == #self.bound }
  end
  return model
end

------------------------------------------------------------------------------------------------------------------
-- Output and small helpers

--- Prints one JSON line for the tap test.
function Harness.emit(value)
  io.write(cjson.encode(value), "\n")
  io.flush()
end

--- An environment variable that must be set.
function Harness.env(name)
  local value = os.getenv(name)
  assert(value ~= nil and value ~= "", "missing environment variable " .. name)
  return value
end

--- A POST with a JSON body to the sandbox control API (a presence change, a member); returns the status.
function Harness.control(path, body)
  local text = cjson.encode(body)
  local status = select(2, http.request({
    url = Harness.env("CONTROL_URL") .. "/" .. path,
    method = "POST",
    headers = { ["content-type"] = "application/json", ["content-length"] = tostring(#text) },
    source = ltn12.source.string(text),
    sink = ltn12.sink.null(),
  }))
  return status
end

--- A POST of `body` as JSON to `target` with extra `headers`; returns the status.
function Harness.post(target, body, headers)
  local text = cjson.encode(body)
  local all = { ["content-type"] = "application/json", ["content-length"] = tostring(#text) }
  for key, value in pairs(headers or {}) do
    all[key] = value
  end
  local status = select(2, http.request({
    url = target,
    method = "POST",
    headers = all,
    source = ltn12.source.string(text),
    sink = ltn12.sink.null(),
  }))
  return status
end

--- Waits until `predicate()` is true, checking every 50 ms; fails naming `what` after `seconds` (10).
function Harness.waitFor(what, predicate, seconds)
  local deadline = Harness.clock() + (seconds or 10)
  while not predicate() do
    assert(Harness.clock() < deadline, "timed out waiting for " .. what)
    Harness.sleep(0.05)
  end
end

--- The log requests among an HttpService's `requests`, in order: { category, events (how many), key (the
--- Idempotency-Key), at, status (nil when none came), retryAfter, refused, answerLost, descriptions }.
function Harness.logRequests(requests)
  local out = {}
  for i = 1, #requests do
    local r = requests[i]
    local category = string.match(r.url or "", "/log/([%w_]+)$")
    if category ~= nil then
      local ok, body = nativePcall(cjson.decode, r.body or "")
      local events = ok and type(body) == "table" and body.events or {}
      local descriptions = {}
      for j = 1, #events do
        descriptions[j] = type(events[j]) == "table" and events[j].description or cjson.null
      end
      table.insert(out, {
        category = category,
        events = #events,
        key = r.idempotencyKey,
        at = r.at,
        status = r.status,
        retryAfter = r.retryAfter,
        refused = r.refused == true,
        answerLost = r.answerLost == true,
        descriptions = descriptions,
      })
    end
  end
  return out
end

--- The last block of `code` among `blocks` (in the order a watch delivered them), or nil.
function Harness.lastBlock(blocks, code)
  for i = #blocks, 1, -1 do
    if blocks[i].code == code then
      return blocks[i]
    end
  end
  return nil
end

--- A PresenceLink client over the stand-ins, against the service in BASE_URL with the key in API_KEY. Beyond the
--- module's options: `inServer` (the players in this server, { Name, UserId } each; env PLAYERS by default) and
--- `studio` (RunService:IsStudio(), true by default). A MessagingService for `universeId` is given when CONTROL_URL
--- is set. Returns the link and its HttpService.
function Harness.link(options)
  local PresenceLink = require("PresenceLink")
  options = options or {}
  options.baseUrl = options.baseUrl or Harness.env("BASE_URL")
  if options.apiKey == nil then
    options.apiKey = Harness.secret(Harness.env("API_KEY"))
  end
  options.httpService = options.httpService or Harness.httpService()
  options.clock = options.clock or Harness.clock
  options.sleep = options.sleep or Harness.sleep
  options.spawn = options.spawn or Harness.spawn
  options.players = options.players or Harness.players(options.inServer or Harness.playersFromEnv())
  options.inServer = nil
  options.textService = options.textService or Harness.textService({ players = options.players })
  options.runService = options.runService or Harness.runService(options.studio ~= false)
  options.studio = nil
  options.serverId = options.serverId or "lua-harness-server"
  if options.messagingService == nil and os.getenv("CONTROL_URL") ~= nil and options.universeId ~= nil then
    options.messagingService = Harness.messagingService({ universeId = options.universeId })
  end
  return PresenceLink.new(options), options.httpService
end

Harness.cjson = cjson

return Harness
