--[[
PresenceLink/Http: every request the module sends, through one governor per PresenceLink (the server's HTTP budget
and the holds the service asks for), and what a failing answer means. Adds PresenceLink:request, decode and failureOf.
]]

local PresenceLink = require(script.Parent.Constants)

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
-- Requests and failures

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

return {
  newGovernor = newGovernor,
  failure = failure,
  header = header,
}
