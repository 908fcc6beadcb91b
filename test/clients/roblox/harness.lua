--[[
The engine services PresenceLink uses, as stand-ins for the tests, in Luau on test/clients/roblox/engine.lua (the
scheduler, require, JSON and the bridge to the host, test/helpers/luau-host.mjs, which makes the real requests and
connections). Each behaves as Roblox's engine reference (creator-docs) describes it, yields and errors included.

  HttpService    RequestAsync: yields its task until the answer, as the engine does; errors ("HttpError: ...") when
                 no answer comes; refuses a body on GET and HEAD, and the headers the engine locks (User-Agent,
                 Roblox-Id, Content-Length); a Secret is revealed in headers only. JSONEncode and JSONDecode (Engine.json),
                 GenerateGUID, and CreateWebStreamClient (SSE or WebSocket, with MessageReceived, Opened, Error and
                 Closed, and Send on a WebSocket; the engine allows it in Studio only). A test can make it refuse
                 requests (`refuse`) or lose the answer of one the service did receive (`loseAnswer`).
  DataModel      BindToClose, and close(): runs the bound functions together and waits for them as the engine does
                 (at most 30 s)
  Secret         a value that prints as "Secret(presence_link)" and cannot be concatenated or compared; AddPrefix and
                 AddSuffix only, and only this HttpService can read it (as HttpService:GetSecret's)
  TextService    FilterStringAsync(text, fromUserId) then GetNonChatStringForBroadcastAsync(): both yield; the words of
                 a list are replaced by # as Roblox's filter does; it throws for a user not in the server, as the
                 engine does, and when told to fail; it counts calls, senders and calls at once
  Players        GetPlayers, GetPlayerByUserId over a list of { Name, UserId }
  RunService     IsStudio
  MessagingService  SubscribeAsync(topic, callback): reads what the sandbox's fake Open Cloud received
                 (GET /control/open-cloud/messages?universe_id=ID&after=SEQ) and calls back with {Data, Sent}, each
                 call a task of its own, as the engine does; topics are 1-80 characters

Errors the engine raises carry no script position (error(message, 0)), as an engine method's do. pcall is Luau's
own: the called function may yield (a TextService or MessagingService call inside the module's pcall
yields to the scheduler, as in the engine). Scenario scripts print one JSON line (Harness.emit) that the tap test
asserts on.
]]

local Engine = Engine
local json = Engine.json
local bridge = Engine.bridge
local host = Engine.host

local Harness = {}

Harness.clock = Engine.clock
Harness.spawn = Engine.spawn
Harness.sleep = Engine.sleep
Harness.run = Engine.run
Harness.json = json

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

--- A signal: Connect(fn) (a connection with Disconnect) and Fire(...), which calls the handlers in order.
function Harness.signal()
  local signal = { handlers = {} }
  function signal:Connect(fn)
    local entry = { fn = fn }
    table.insert(self.handlers, entry)
    return {
      Connected = true,
      Disconnect = function(connection)
        entry.fn = nil
        if type(connection) == "table" then
          connection.Connected = false
        end
      end,
    }
  end
  function signal:Fire(...)
    for _, entry in table.clone(self.handlers) do
      if entry.fn ~= nil then
        entry.fn(...)
      end
    end
  end
  return signal
end

------------------------------------------------------------------------------------------------------------------
-- Raw requests (the host's), for the stand-ins and the scenarios: the status and the body.

local function headerLines(headers)
  local lines = {}
  for name, value in headers do
    table.insert(lines, string.lower(name) .. "\t" .. value)
  end
  return table.concat(lines, "\n")
end

-- Sends a request through the host and yields until its outcome: { status, statusMessage, headers, body } or nil
-- and the error.
local function send(method, url, headers, body, sourceAddress)
  local id = host.request(method, url, bridge.escape(headerLines(headers)), bridge.escape(body or ""), body ~= nil, sourceAddress or "")
  local fields = Engine.await(id)
  if fields[1] == "failed" then
    return nil, fields[3]
  end
  local responseHeaders = {}
  for _, line in string.split(fields[5], "\n") do
    local name, value = string.match(line, "^([^\t]*)\t(.*)$")
    if name ~= nil then
      -- Repeated headers are joined with ", " (RFC 9110).
      responseHeaders[name] = responseHeaders[name] and (responseHeaders[name] .. ", " .. value) or value
    end
  end
  return { status = tonumber(fields[3]), statusMessage = fields[4], headers = responseHeaders, body = fields[6] }
end

------------------------------------------------------------------------------------------------------------------
-- HttpService

local HttpService = {}
HttpService.__index = HttpService

--- A fresh HttpService; `log` (optional) collects every request as { method, url, authorization, body,
--- idempotencyKey, at, status, retryAfter }. options.sourceAddress (a loopback address such as 127.0.0.2) makes its
--- requests come from there: another game server, with rate limits of its own.
function Harness.httpService(log, options)
  return setmetatable({ requests = log or {}, sourceAddress = options and options.sourceAddress }, HttpService)
end

function HttpService:JSONEncode(value)
  return json.encode(value)
end

function HttpService:JSONDecode(text)
  return json.decode(text)
end

-- As the engine's: a random (version 4, variant 1) UUID in capitals, in braces unless wrapInCurlyBraces is false.
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

-- Headers the engine sets itself and refuses from scripts (creator-docs, HttpService:RequestAsync).
local LOCKED_HEADERS = { ["user-agent"] = true, ["roblox-id"] = true, ["content-length"] = true }

function HttpService:RequestAsync(request)
  assert(type(request) == "table", "RequestAsync takes a dictionary")
  assert(type(request.Url) == "string" and string.find(request.Url, "^https?://") ~= nil, "RequestAsync: Url must be an http or https URL")
  local method = string.upper(request.Method or "GET")
  local headers = {}
  for key, value in request.Headers or {} do
    assert(type(key) == "string", "RequestAsync: header names are strings")
    if LOCKED_HEADERS[string.lower(key)] then
      error("Header \"" .. key .. "\" is not allowed!", 2)
    end
    value = reveal(value)
    assert(type(value) == "string", "RequestAsync: header values are strings or Secrets")
    headers[string.lower(key)] = value
  end
  if request.Body ~= nil then
    assert(type(request.Body) == "string", "RequestAsync: Body is a string")
    assert(method ~= "GET" and method ~= "HEAD", "a " .. method .. " request cannot have a body")
  end
  local key = headers["idempotency-key"]
  if self.refuse ~= nil and self.refuse(request) then
    table.insert(self.requests, { method = method, url = request.Url, refused = true, idempotencyKey = key, body = request.Body, at = Harness.clock() })
    error("HttpError: ConnectFail (refused by the test)", 0)
  end
  local record = { method = method, url = request.Url, authorization = headers.authorization, body = request.Body, idempotencyKey = key, at = Harness.clock() }
  table.insert(self.requests, record)
  local response, err = send(method, request.Url, headers, request.Body, self.sourceAddress)
  if response == nil then
    error(err, 0)
  end
  record.status = response.status
  record.retryAfter = tonumber(response.headers["retry-after"] or "")
  if self.loseAnswer ~= nil and self.loseAnswer(request) then
    record.answerLost = true
    error("HttpError: Timedout (the test dropped the answer after the service sent it)", 0)
  end
  return {
    Success = response.status >= 200 and response.status < 300,
    StatusCode = response.status,
    StatusMessage = response.statusMessage,
    Headers = response.headers,
    Body = response.body,
  }
end

-- Streams: the host's connection, its events fired in order by a task of its own (a handler that yields holds the
-- next event back, as one reader would).
function HttpService:CreateWebStreamClient(kind, options)
  local kindName = tostring(kind)
  if typeof(kind) == "EnumItem" then
    kindName = kind.Name
  end
  assert(kindName == "SSE" or kindName == "WebSocket" or kindName == "RawStream", "CreateWebStreamClient: unknown WebStreamClientType " .. kindName)
  local client = {
    MessageReceived = Harness.signal(),
    Opened = Harness.signal(),
    Error = Harness.signal(),
    Closed = Harness.signal(),
    closed = false,
  }
  local requests = self.requests
  table.insert(requests, { method = "STREAM", url = options.Url, kind = kindName })
  local id = host.stream(kindName, options.Url)
  local pending = {}
  Engine.listen(id, function(event, fields)
    table.insert(pending, { event = event, fields = fields })
  end)
  function client:Close()
    if not self.closed then
      self.closed = true
      self.open = false
      Engine.forget(id)
      host.close(id)
      self.Closed:Fire()
    end
  end
  function client:Send(message)
    if kindName ~= "WebSocket" then
      error("Send works only on WebSocket clients", 0)
    end
    if not self.open or self.closed then
      error("the WebSocket is not open", 0)
    end
    table.insert(requests, { method = "SEND", url = message })
    host.send(id, bridge.escape(message))
  end
  Engine.spawn(function()
    while not client.closed do
      local item = table.remove(pending, 1)
      if item == nil then
        Engine.sleep(0.01)
      elseif item.event == "open" then
        client.open = true
        client.Opened:Fire(tonumber(item.fields[3]))
      elseif item.event == "message" then
        client.MessageReceived:Fire(item.fields[3])
      elseif item.event == "error" then
        client.Error:Fire(tonumber(item.fields[3]) or 0, item.fields[4])
      elseif item.event == "closed" then
        client:Close()
      end
    end
  end)
  return client
end

------------------------------------------------------------------------------------------------------------------
-- TextService, Players, RunService, MessagingService

--- The words the stand-in TextService censors unless told others.
Harness.CENSORED = { "badword", "frick" }

local function censor(text, words)
  local lower = string.lower(text)
  local out = text
  for _, word in words do
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
    self.calls += 1
    table.insert(self.fromUserIds, fromUserId)
    table.insert(self.texts, text)
    self.inFlight += 1
    self.maxInFlight = math.max(self.maxInFlight, self.inFlight)
    Harness.sleep(self.delay)
    if self.fail == "filter" then
      self.inFlight -= 1
      error("TextService:FilterStringAsync failed (the test made it fail)", 0)
    end
    if self.players ~= nil and self.players:GetPlayerByUserId(fromUserId) == nil then
      self.inFlight -= 1
      error("TextService:FilterStringAsync: user " .. tostring(fromUserId) .. " is not online on this server", 0)
    end
    local filtered = censor(text, self.words)
    return {
      GetNonChatStringForBroadcastAsync = function()
        Harness.sleep(0)
        service.inFlight -= 1
        if service.fail == "result" then
          error("TextFilterResult:GetNonChatStringForBroadcastAsync failed (the test made it fail)", 0)
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
  for i, player in list or {} do
    players.list[i] = { Name = player.Name, UserId = player.UserId }
  end
  function players:GetPlayers()
    return table.clone(self.list)
  end
  function players:GetPlayerByUserId(userId)
    for _, player in self.list do
      if player.UserId == userId then
        return player
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
    for _, player in self.list do
      if player.UserId ~= userId then
        table.insert(kept, player)
      end
    end
    self.list = kept
  end
  return players
end

--- The players of env PLAYERS ("Name:UserId,Name:UserId"), or none.
function Harness.playersFromEnv()
  local list = {}
  for name, id in string.gmatch(Engine.env("PLAYERS") or "", "([%w_]+):(%d+)") do
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
    y -= 1
  end
  local era = y // 400
  local yoe = y - era * 400
  local doy = (153 * ((mo + 9) % 12) + 2) // 5 + tonumber(d) - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec)
end

-- What the fake Open Cloud received for a universe after `after` (OPEN_CLOUD_CONTROL_URL, else CONTROL_URL, then
-- /open-cloud/messages): its JSON text, or nil and why.
local function openCloudText(universeId, after)
  local control = Engine.env("OPEN_CLOUD_CONTROL_URL") or Harness.env("CONTROL_URL")
  local target = control .. "/open-cloud/messages?universe_id=" .. string.format("%.0f", universeId)
  if after ~= nil then
    target ..= "&after=" .. string.format("%.0f", after)
  end
  local response, err = send("GET", target, {}, nil)
  if response == nil or response.status ~= 200 then
    return nil, "GET " .. target .. ": " .. tostring(response and response.status or err)
  end
  return response.body
end

local function openCloudMessages(universeId, after)
  local text, err = openCloudText(universeId, after)
  if text == nil then
    return nil, err
  end
  return json.decode(text).messages
end

-- The newest message's seq (0 for none), read off the text: everything published so far need not be decoded (a
-- message's own JSON is an escaped string there, so its quotes never read as "seq").
local function latestSeq(universeId)
  local text, err = openCloudText(universeId, nil)
  if text == nil then
    return nil, err
  end
  local latest = 0
  for seq in string.gmatch(text, '"seq":(%d+)') do
    latest = math.max(latest, tonumber(seq))
  end
  return latest
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
      error("MessagingService:SubscribeAsync failed (the test made it fail)", 0)
    end
    assert(type(topic) == "string" and #topic >= 1 and #topic <= 80, "topics are 1-80 characters")
    local after = assert(latestSeq(self.universeId))
    local connection = { Connected = true }
    function connection:Disconnect()
      self.Connected = false
    end
    table.insert(self.topics, topic)
    Harness.spawn(function()
      while connection.Connected do
        for _, m in openCloudMessages(self.universeId, after) or {} do
          if m.seq > after then
            after = m.seq
            if connection.Connected and m.topic == topic then
              self.delivered += 1
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
    for _, fn in self.bound do
      Harness.spawn(function()
        fn()
        done += 1
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

--- Prints one JSON line for the tap test (any table: keys that are not 1..n are written as strings).
function Harness.emit(value)
  Engine.write(json.encode(value, true) .. "\n")
end

--- An environment variable that must be set.
function Harness.env(name)
  local value = Engine.env(name)
  assert(value ~= nil and value ~= "", "missing environment variable " .. name)
  return value
end

--- A repository file's JSON, decoded.
function Harness.readJson(path)
  return json.decode(Engine.read(path))
end

--- A POST of `body` as JSON to `target` with extra `headers`; returns the status.
function Harness.post(target, body, headers)
  local all = { ["content-type"] = "application/json" }
  for key, value in headers or {} do
    all[key] = value
  end
  local response, err = send("POST", target, all, json.encode(body))
  assert(response ~= nil, err)
  return response.status
end

--- A POST with a JSON body to the sandbox control API (a presence change, a member); returns the status.
function Harness.control(path, body)
  return Harness.post(Harness.env("CONTROL_URL") .. "/" .. path, body)
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
  for _, r in requests do
    local category = string.match(r.url or "", "/log/([%w_]+)$")
    if category ~= nil then
      local ok, body = pcall(json.decode, r.body or "")
      local events = ok and type(body) == "table" and body.events or {}
      local descriptions = {}
      for j, event in events do
        descriptions[j] = type(event) == "table" and event.description or json.null
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
  options.serverId = options.serverId or "luau-harness-server"
  if options.messagingService == nil and Engine.env("CONTROL_URL") ~= nil and options.universeId ~= nil then
    options.messagingService = Harness.messagingService({ universeId = options.universeId })
  end
  return PresenceLink.new(options), options.httpService
end

return Harness
