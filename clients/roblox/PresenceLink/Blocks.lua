--[[
PresenceLink/Blocks: codes as players type them, and the block grammar of the callbacks and rpc answers (a port of
src/presence/model/parse-blocks.ts; both parsers are held to the vectors of test/fixtures/blocks.json). Pure: no engine
service, no yield. Adds PresenceLink.isCode, codeCandidates, parseCallbacks and parseRpc.
]]

local PresenceLink = require(script.Parent.Constants)

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

return {
  isCode = PresenceLink.isCode,
  codeCandidates = PresenceLink.codeCandidates,
  parseCallbacks = PresenceLink.parseCallbacks,
  parseRpc = PresenceLink.parseRpc,
}
