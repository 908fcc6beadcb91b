--[[
PresenceLink/Constants: the PresenceLink table itself, with its public constants and player-facing texts. init.lua
adds the methods and returns it; every child module reads the constants from it, so a game that changes one (a
message, HIDDEN_TEXT) changes it everywhere.
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

return PresenceLink
