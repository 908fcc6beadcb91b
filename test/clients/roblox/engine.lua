--[[
The core of the Roblox engine stand-in, in Luau, run by test/helpers/luau-host.mjs under a real Luau VM (luau-web)
before any scenario: it sets the globals a script meets in a game server (require, task, print, warn) and the global
`Engine` that test/clients/roblox/harness.lua builds its services on.

  Engine.bridge  the host's escaped strings (see luau-host.mjs): escape, unescape
  Engine.json    encode and decode as HttpService:JSONEncode and JSONDecode do (creator-docs, HttpService): an empty
                 table is [], a table with keys 1..n is an array (string keys ignored), otherwise keys must be strings;
                 nil is never written; a cycle, a function or another type is an error; inf and nan are written as
                 inf and nan; decoding invalid JSON is an error, null becomes nil. Engine.json.null writes null.
  Engine.spawn, Engine.sleep, Engine.run, Engine.await
                 tasks as the engine's scheduler runs them: spawned tasks start at the next resumption; a task yields
                 on a wait, a request or a stream's next event, and only that task waits (the other tasks and Node's
                 I/O go on); Engine.run(main) runs until main ends and fails on any task's error
  Engine.moduleScript, require
                 ModuleScripts as instances: a folder holding init.lua and other .lua files is a ModuleScript with a
                 child ModuleScript per file (Rojo's layout); require(instance) runs its source once, with `script`
                 bound to the instance, and returns its one value, as require does in the engine
]]

-- Each host function once, as a local: reaching a JavaScript value through a global or a field costs a round trip.
local hostNow, hostEnv, hostWrite, hostRead, hostList, hostLoad = Host.now, Host.env, Host.write, Host.read, Host.list, Host.load
local hostWait, hostNext = Host.wait, Host.next
local Engine = {}
Engine.host = { request = Host.request, stream = Host.stream, send = Host.send, close = Host.close }

-- The clock: the host's wall time once, then Luau's own os.clock (monotonic, in the VM: no call out).
local clockBase = hostNow() - os.clock()
local function now(): number
  return clockBase + os.clock()
end

------------------------------------------------------------------------------------------------------------------
-- The bridge's strings: control characters, % and bytes from 0x7F travel as %XX.

local function escape(text: string): string
  return (string.gsub(text, "[%c%%\127-\255]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

local function unescape(text: string?): string?
  if text == nil or string.find(text, "%", 1, true) == nil then
    return text
  end
  return (string.gsub(text, "%%(%x%x)", function(hex)
    return string.char(tonumber(hex, 16))
  end))
end

Engine.bridge = { escape = escape, unescape = unescape }

function Engine.env(name: string): string?
  return unescape(hostEnv(name))
end

function Engine.read(path: string): string
  return unescape(hostRead(path))
end

function Engine.write(text: string)
  hostWrite(escape(text))
end

------------------------------------------------------------------------------------------------------------------
-- JSON as HttpService writes and reads it.

local json = {}
json.null = setmetatable({}, { __tostring = function()
  return "null"
end })

local ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function quote(s: string): string
  if string.find(s, '[%c"\\]') == nil then
    return '"' .. s .. '"'
  end
  return '"' .. string.gsub(s, '[%c"\\]', function(c)
    return ESCAPES[c] or string.format("\\u%04x", string.byte(c))
  end) .. '"'
end

local function encodeNumber(n: number): string
  if n ~= n then
    return "nan"
  elseif n == math.huge then
    return "inf"
  elseif n == -math.huge then
    return "-inf"
  elseif n % 1 == 0 and math.abs(n) < 2 ^ 53 then
    return string.format("%d", n)
  end
  return tostring(n)
end

local encodeValue

local function isSequence(t): boolean
  local count = 0
  for _ in t do
    count += 1
  end
  return count == #t
end

local function encodeTable(t, seen, out, lenient)
  if seen[t] then
    error("tables cannot be cyclic", 0)
  end
  seen[t] = true
  if next(t) == nil then
    -- HttpService writes an empty table as []; the tests' output, as lua-cjson did, as {}.
    out[#out + 1] = if lenient then "{}" else "[]"
  elseif #t > 0 and (not lenient or isSequence(t)) then
    out[#out + 1] = "["
    for i = 1, #t do
      if i > 1 then
        out[#out + 1] = ","
      end
      encodeValue(t[i], seen, out, lenient)
    end
    out[#out + 1] = "]"
  else
    local keys = {}
    local names = {}
    for key in t do
      if type(key) ~= "string" and not lenient then
        error("Can't convert to JSON: keys must be strings", 0)
      end
      names[tostring(key)] = key
      table.insert(keys, tostring(key))
    end
    table.sort(keys)
    out[#out + 1] = "{"
    for i, key in keys do
      if i > 1 then
        out[#out + 1] = ","
      end
      out[#out + 1] = quote(key)
      out[#out + 1] = ":"
      encodeValue(t[names[key]], seen, out, lenient)
    end
    out[#out + 1] = "}"
  end
  seen[t] = nil
end

encodeValue = function(value, seen, out, lenient)
  local kind = type(value)
  if value == json.null or kind == "nil" then
    out[#out + 1] = "null"
  elseif kind == "boolean" then
    out[#out + 1] = tostring(value)
  elseif kind == "number" then
    out[#out + 1] = encodeNumber(value)
  elseif kind == "string" then
    out[#out + 1] = quote(value)
  elseif kind == "table" then
    encodeTable(value, seen, out, lenient)
  else
    error("Can't convert to JSON: " .. typeof(value) .. " values cannot be written", 0)
  end
end

--- JSON text of `value`; `lenient` (the tests' output, never HttpService's) writes any table, its keys as strings.
function json.encode(value, lenient: boolean?): string
  local out = {}
  encodeValue(value, {}, out, lenient == true)
  return table.concat(out)
end

local decodeAt

local function decodeError(text, at, what)
  error(string.format("Can't parse JSON: %s at character %d", what, at), 0)
end

local function skip(text, at)
  return (string.find(text, "[^ \t\r\n]", at)) or #text + 1
end

local UNESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function utf8Of(code)
  return utf8.char(code)
end

local function decodeString(text, at)
  local parts = {}
  local i = at + 1
  while true do
    local stop = string.find(text, '["\\\0-\31]', i)
    if stop == nil then
      decodeError(text, at, "an unterminated string")
    end
    table.insert(parts, string.sub(text, i, stop - 1))
    local c = string.sub(text, stop, stop)
    if c == '"' then
      return table.concat(parts), stop + 1
    elseif c == "\\" then
      local e = string.sub(text, stop + 1, stop + 1)
      if e == "u" then
        local hex = string.match(text, "^%x%x%x%x", stop + 2)
        if hex == nil then
          decodeError(text, stop, "a bad \\u escape")
        end
        local code = tonumber(hex, 16)
        local after = stop + 6
        if code >= 0xD800 and code <= 0xDBFF then
          local low = string.match(text, "^\\u(%x%x%x%x)", after)
          if low ~= nil then
            code = 0x10000 + (code - 0xD800) * 0x400 + (tonumber(low, 16) - 0xDC00)
            after += 6
          end
        end
        table.insert(parts, utf8Of(code))
        i = after
      elseif UNESCAPES[e] ~= nil then
        table.insert(parts, UNESCAPES[e])
        i = stop + 2
      else
        decodeError(text, stop, "a bad escape")
      end
    else
      decodeError(text, stop, "a control character in a string")
    end
  end
end

decodeAt = function(text, at)
  at = skip(text, at)
  local c = string.sub(text, at, at)
  if c == "{" then
    local out = {}
    at = skip(text, at + 1)
    if string.sub(text, at, at) == "}" then
      return out, at + 1
    end
    while true do
      if string.sub(text, at, at) ~= '"' then
        decodeError(text, at, "a key that is not a string")
      end
      local key
      key, at = decodeString(text, at)
      at = skip(text, at)
      if string.sub(text, at, at) ~= ":" then
        decodeError(text, at, "a missing :")
      end
      local value
      value, at = decodeAt(text, at + 1)
      out[key] = value
      at = skip(text, at)
      local sep = string.sub(text, at, at)
      if sep == "}" then
        return out, at + 1
      elseif sep ~= "," then
        decodeError(text, at, "a missing , or }")
      end
      at = skip(text, at + 1)
    end
  elseif c == "[" then
    local out = {}
    local n = 0
    at = skip(text, at + 1)
    if string.sub(text, at, at) == "]" then
      return out, at + 1
    end
    while true do
      local value
      value, at = decodeAt(text, at)
      n += 1
      out[n] = value
      at = skip(text, at)
      local sep = string.sub(text, at, at)
      if sep == "]" then
        return out, at + 1
      elseif sep ~= "," then
        decodeError(text, at, "a missing , or ]")
      end
      at += 1
    end
  elseif c == '"' then
    return decodeString(text, at)
  elseif string.sub(text, at, at + 3) == "true" then
    return true, at + 4
  elseif string.sub(text, at, at + 4) == "false" then
    return false, at + 5
  elseif string.sub(text, at, at + 3) == "null" then
    return nil, at + 4
  end
  local number = string.match(text, "^-?%d+%.?%d*[eE]?[-+]?%d*", at)
  if number == nil or tonumber(number) == nil then
    decodeError(text, at, "an unexpected character")
  end
  return tonumber(number), at + #number
end

function json.decode(text: string)
  if type(text) ~= "string" then
    error("Can't parse JSON: the input is not a string", 0)
  end
  local value, at = decodeAt(text, 1)
  if skip(text, at) <= #text then
    decodeError(text, at, "text after the value")
  end
  return value
end

Engine.json = json

------------------------------------------------------------------------------------------------------------------
-- Scheduler. A task yields the time it wakes at (math.huge while it waits for an event addressed to it).

local tasks = {}
local byThread = {}
local results = {}
local handlers = {}

Engine.clock = now

function Engine.spawn(fn, ...)
  local args = table.pack(...)
  local record = { wake = 0 }
  record.co = coroutine.create(function()
    fn(table.unpack(args, 1, args.n))
  end)
  byThread[record.co] = record
  table.insert(tasks, record)
  return record.co
end

local function inTask(): boolean
  local co = coroutine.running()
  return co ~= nil and byThread[co] ~= nil
end

local dispatch

-- Outside any task (a script's top level before Engine.run): wait in place, handling events as they come.
local function block(untilTime, id)
  while true do
    if id ~= nil and results[id] ~= nil then
      return
    end
    local left = untilTime - now()
    if id == nil and left <= 0 then
      return
    end
    if (hostWait(math.min(math.max(left, 0), 1)) or 0) > 0 then
      dispatch()
    end
  end
end

function Engine.sleep(seconds: number?)
  local untilTime = now() + (seconds or 0)
  if not inTask() then
    block(untilTime, nil)
    return
  end
  coroutine.yield(untilTime)
end

--- Waits for the event addressed to `id` (a request's outcome) and returns its fields.
function Engine.await(id: number)
  if not inTask() then
    block(math.huge, id)
  else
    local record = byThread[coroutine.running()]
    record.waiting = id
    while results[id] == nil do
      coroutine.yield(math.huge)
    end
    record.waiting = nil
  end
  local fields = results[id]
  results[id] = nil
  return fields
end

--- Calls `handler(kind, fields)` for the events of `id` (a stream's), in order, inside the scheduler.
function Engine.listen(id: number, handler)
  handlers[id] = handler
end

function Engine.forget(id: number)
  handlers[id] = nil
end

local function wakeWaiter(id)
  for _, record in tasks do
    if record.waiting == id then
      record.wake = 0
    end
  end
end

dispatch = function()
  while true do
    local event = hostNext()
    if event == nil then
      return
    end
    local fields = string.split(event, "\n")
    for i, field in fields do
      fields[i] = unescape(field)
    end
    local kind, id = fields[1], tonumber(fields[2])
    if kind == "response" or kind == "failed" then
      results[id] = fields
      wakeWaiter(id)
    elseif handlers[id] ~= nil then
      handlers[id](kind, fields)
    end
  end
end

--- Runs `main` as a task, with every task it spawns, until main ends; fails on any task's error.
function Engine.run(main)
  local done = false
  Engine.spawn(function()
    main()
    done = true
  end)
  while not done do
    local current = now()
    local snapshot = table.clone(tasks)
    for _, record in snapshot do
      if not done and record.wake <= current and coroutine.status(record.co) == "suspended" then
        local ok, wake = coroutine.resume(record.co)
        if not ok then
          error(debug.traceback(record.co, tostring(wake)), 0)
        end
        record.wake = wake or 0
      end
    end
    local alive = {}
    local nextWake = math.huge
    for _, record in tasks do
      if coroutine.status(record.co) ~= "dead" then
        table.insert(alive, record)
        nextWake = math.min(nextWake, record.wake)
      else
        byThread[record.co] = nil
      end
    end
    tasks = alive
    if not done then
      if (hostWait(math.min(math.max(nextWake - now(), 0), 1)) or 0) > 0 then
        dispatch()
      end
    end
  end
  tasks = {}
end

------------------------------------------------------------------------------------------------------------------
-- ModuleScripts and require.

local loaded = {}

local Instance = {}
Instance.__index = function(self, key)
  local method = rawget(Instance, key)
  if method ~= nil then
    return method
  end
  local child = rawget(self, "_children")[key]
  if child ~= nil then
    return child
  end
  error(string.format("%s is not a valid member of %s %q", tostring(key), rawget(self, "ClassName"), rawget(self, "Name")), 2)
end
Instance.__tostring = function(self)
  return rawget(self, "Name")
end

--- An instance of `className` named `name` under `parent` (nil for none); `path` is a ModuleScript's source file.
function Engine.instance(className: string, name: string, parent, path: string?)
  local instance = setmetatable({ ClassName = className, Name = name, Parent = parent, _children = {}, _path = path }, Instance)
  if parent ~= nil then
    rawget(parent, "_children")[name] = instance
  end
  return instance
end

function Instance:FindFirstChild(name)
  return rawget(self, "_children")[name]
end

function Instance:WaitForChild(name)
  return assert(rawget(self, "_children")[name], "infinite yield: no child " .. tostring(name))
end

function Instance:GetChildren()
  local out = {}
  for _, child in rawget(self, "_children") do
    out[#out + 1] = child
  end
  return out
end

function Instance:GetFullName()
  local parent = rawget(self, "Parent")
  if parent == nil then
    return rawget(self, "Name")
  end
  return parent:GetFullName() .. "." .. rawget(self, "Name")
end

function Instance:IsA(className)
  return rawget(self, "ClassName") == className
end

--- A ModuleScript from a repository path: a file, or a folder holding init.lua (its source) and a child
--- ModuleScript per other .lua file, as Rojo builds one.
function Engine.moduleScript(path: string, name: string, parent)
  local files = hostList(path)
  if files == nil then
    return Engine.instance("ModuleScript", name, parent, path)
  end
  local instance = Engine.instance("ModuleScript", name, parent, path .. "/init.lua")
  for _, file in string.split(files, "\n") do
    local child = string.match(file, "^(.+)%.lua$")
    if child ~= nil and child ~= "init" then
      Engine.moduleScript(path .. "/" .. file, child, instance)
    end
  end
  return instance
end

--- A repository file compiled as a script: a function whose argument is the script's `script`.
function Engine.compile(path: string)
  local chunk = hostLoad(path)
  if type(chunk) ~= "function" then
    error(tostring(chunk), 2)
  end
  return chunk
end

--- Compiles a script's source with `script` bound to `instance` and runs it; returns what it returned.
function Engine.runScript(instance)
  local chunk = Engine.compile(rawget(instance, "_path"))
  return table.pack(chunk(instance))
end

-- What require("name") finds outside the engine's own instances: the harness and the scenarios' helpers.
local services = Engine.instance("DataModel", "game", nil)
Engine.serverScriptService = Engine.instance("ServerScriptService", "ServerScriptService", services)

--- The PresenceLink ModuleScript, as the kit places it (ServerScriptService), in the form PRESENCE_LINK_FORM asks
--- for: "tree" (clients/roblox/PresenceLink/, the default) or "single" (clients/roblox/PresenceLink.single.lua).
function Engine.presenceLink(parent)
  if Engine.env("PRESENCE_LINK_FORM") == "single" then
    return Engine.instance("ModuleScript", "PresenceLink", parent or Engine.serverScriptService, Engine.env("PRESENCE_LINK_SINGLE") or "clients/roblox/PresenceLink.single.lua")
  end
  return Engine.moduleScript("clients/roblox/PresenceLink", "PresenceLink", parent or Engine.serverScriptService)
end

local named = {}

function require(target)
  if type(target) == "string" then
    if named[target] == nil then
      if target == "PresenceLink" then
        named[target] = Engine.presenceLink()
      else
        named[target] = Engine.instance("ModuleScript", target, nil, "test/clients/roblox/" .. target .. ".lua")
      end
    end
    target = named[target]
  end
  if type(target) ~= "table" or getmetatable(target) ~= Instance or rawget(target, "ClassName") ~= "ModuleScript" then
    error("Attempted to call require with invalid argument(s).", 2)
  end
  local entry = loaded[target]
  if entry == nil then
    loaded[target] = { loading = true }
    local values = Engine.runScript(target)
    if values.n ~= 1 then
      error(target:GetFullName() .. ": Module code did not return exactly one value", 2)
    end
    loaded[target] = { value = values[1] }
    return values[1]
  elseif entry.loading then
    error("Requested module was required recursively", 2)
  end
  return entry.value
end

------------------------------------------------------------------------------------------------------------------
-- The other globals of a script.

function print(...)
  local parts = table.pack(...)
  for i = 1, parts.n do
    parts[i] = tostring(parts[i])
  end
  Engine.write(table.concat(parts, " ", 1, parts.n) .. "\n")
end

task = {
  spawn = function(fn, ...)
    return Engine.spawn(fn, ...)
  end,
  defer = function(fn, ...)
    return Engine.spawn(fn, ...)
  end,
  wait = function(seconds)
    local started = now()
    Engine.sleep(seconds or 0)
    return now() - started
  end,
  delay = function(seconds, fn, ...)
    local args = table.pack(...)
    return Engine.spawn(function()
      Engine.sleep(seconds)
      fn(table.unpack(args, 1, args.n))
    end)
  end,
}

math.randomseed(math.floor(now() * 1000) % 2147483647)

Engine.Instance = Instance
getfenv(1).Engine = Engine

-- The VM's first suspension takes about a second more than the others (luau-web, the first time its Asyncify
-- unwinds): taken here, before any scenario runs, so no scenario's timing pays for it.
hostWait(0.001)
return nil
