--[[
Test harness for clients/roblox/PresenceLink.lua under Lua 5.1: a stand-in for the parts of the Roblox engine the
module uses, written for these tests and talking to the real service over real sockets.

  HttpService    RequestAsync (lua-socket http), JSONEncode/JSONDecode (lua-cjson), CreateWebStreamClient
                 (an SSE client over a TCP socket, with MessageReceived/Opened/Error/Closed signals)
  Secret         a value that prints as "Secret(presence_link)" and cannot be concatenated or compared; AddPrefix/AddSuffix only,
                 and only this HttpService can read it (as the engine does with HttpService:GetSecret)
  task           spawn and wait over coroutines, with a run loop that sleeps when every task waits

Scenario scripts print one JSON line (Harness.emit) that the tap test asserts on.
]]

local here = string.match(arg and arg[0] or "", "^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. here .. "/../../../clients/roblox/?.lua;" .. package.path

local socket = require("socket")
local http = require("socket.http")
local url = require("socket.url")
local ltn12 = require("ltn12")
local cjson = require("cjson")

local Harness = {}

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

------------------------------------------------------------------------------------------------------------------
-- HttpService

local HttpService = {}
HttpService.__index = HttpService

--- A fresh HttpService; `log` (optional) collects every request as { method, url, headers }.
function Harness.httpService(log)
  return setmetatable({ requests = log or {} }, HttpService)
end

function HttpService:JSONEncode(value)
  return cjson.encode(value)
end

function HttpService:JSONDecode(text)
  return cjson.decode(text)
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
  table.insert(self.requests, { method = method, url = request.Url, authorization = headers.authorization })
  local chunks = {}
  local ok, status, responseHeaders, statusLine = http.request({
    url = request.Url,
    method = method,
    headers = headers,
    source = request.Body and ltn12.source.string(request.Body) or nil,
    sink = ltn12.sink.table(chunks),
  })
  if ok == nil then
    error("HttpError: " .. tostring(status))
  end
  return {
    Success = status >= 200 and status < 300,
    StatusCode = status,
    StatusMessage = string.match(statusLine or "", "^HTTP/%S+ %d+ (.*)$") or "",
    Headers = responseHeaders or {},
    Body = table.concat(chunks),
  }
end

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
  table.insert(self.requests, { method = "STREAM", url = options.Url, kind = kind })
  function client:Close()
    if not self.closed then
      self.closed = true
      if self.sock ~= nil then
        self.sock:close()
      end
      self.Closed:Fire()
    end
  end
  function client:Send()
    error("Send works only on WebSocket clients")
  end
  Harness.spawn(function()
    if kind ~= "SSE" then
      client.Error:Fire(0, "the test stand-in speaks SSE only")
      client:Close()
      return
    end
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
    sock:send("GET " .. path .. " HTTP/1.1\r\nHost: " .. parsed.host .. "\r\nAccept: text/event-stream\r\n\r\n")
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
            client:Close()
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
    client:Close()
  end)
  return client
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

--- A PresenceLink client over the stand-ins, against the service in BASE_URL with the key in API_KEY.
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
  return PresenceLink.new(options), options.httpService
end

Harness.cjson = cjson

return Harness
