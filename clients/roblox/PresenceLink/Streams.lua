--[[
PresenceLink/Streams: watch's stream in Studio, SSE or WebSocket through HttpService:CreateWebStreamClient (which
works in Studio only). Methods of the Watcher (Watch.lua), which takes them all.
]]

local PresenceLink = require(script.Parent.Constants)

-- How long a stream that just opened may take to deliver its first blocks before watch polls anyway.
local STREAM_FIRST_BLOCKS_SECONDS = 5

local Watcher = {}

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

return {
  methods = Watcher,
}
