--[[
  Counts a batch of per-client rate-limit operations of one front process (rate-limits.ts sends, in one call, every
  operation that arose while its previous call was on its way), in order. Windows are fixed and start with a
  client's first request: the key is the window's count (an integer string) and expires when the window ends, as
  rate-limiter-flexible kept the same keys, so fronts of the previous version share the counts during an upgrade.
  Two kinds of operation:
    - a request: counted (INCR); a new window gets its expiry;
    - a spare: one point counted ahead for the front to spend on the client's next request (a lease of one), taken
      only while the count stays at or below the given ceiling and only in a window that exists (a spare never opens
      a window); refused otherwise, and then nothing is counted.
  Each operation is counted on its own (redis.pcall): a key that cannot be counted fails only its own operation.

    Input:
      KEYS[i] the route's count for the client of operation i, {p}:rl:{route}:{client} (string, PX = rest of the
              window); a key may appear more than once

      ARGV[2i-1] the window of operation i in ms; negative (minus the window) when the caller already knows when the
                 window ends, so its PTTL is not read again unless this operation opens a new window
      ARGV[2i]   0 for a request; for a spare, the ceiling: the highest count the spare may take

    Output:
      two entries per operation, in order. A request: the count of the window after it, then the ms until the window
      ends (-1 when not read). A spare: the spare's count (0 when refused), then -1. An operation that failed gives 0
      and the error message.
]]
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local window = tonumber(ARGV[2 * i - 1])
  local known = window < 0
  if known then window = -window end
  local ceiling = tonumber(ARGV[2 * i])
  local used = redis.pcall('INCR', key)
  if type(used) == 'table' then
    out[2 * i - 1] = 0
    out[2 * i] = used.err
  elseif ceiling > 0 then
    local granted = used
    if used == 1 then
      redis.call('DEL', key)
      granted = 0
    elseif used > ceiling then
      redis.call('DECR', key)
      granted = 0
    end
    out[2 * i - 1] = granted
    out[2 * i] = -1
  else
    local left = -1
    if used == 1 then
      redis.call('PEXPIRE', key, window)
      left = window
    elseif not known then
      left = redis.call('PTTL', key)
      -- A count without an expiry (written by hand) would never end: it gets a window from now.
      if left < 0 then
        redis.call('PEXPIRE', key, window)
        left = window
      end
    end
    out[2 * i - 1] = used
    out[2 * i] = left
  end
end
return out
