--[[
  Spends one client's budget of distinct unknown codes (not found, or issued but not linked) for the current window,
  shared by every front. The window starts with the client's first unknown code and lasts ARGV[2] ms (Redis keeps
  the time, so fronts' clocks do not matter). Codes already in the set cost nothing again. A request whose new
  unknown codes would pass the budget is refused whole and records nothing.

    Input:
      KEYS[1] the client's codes, {p}:unknown:{client} (set of CODE, PX = what is left of the window)
      KEYS[2] refusal mark, {p}:unknown:{client}:hit (string '1', PX = what is left of the window): set by the first
              refusal of a window, so "clients that hit the budget" is counted once per client and window

      ARGV[1] budget (distinct unknown codes per window, at least 1)
      ARGV[2] window in ms
      ARGV[3..] the unknown codes of this request (distinct)

    Output:
      {allowed (1 or 0), codes in the window after this call, ms until the window ends, first refusal (1 or 0)}
]]
local budget = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local used = redis.call('SCARD', KEYS[1])
local fresh = {}
for i = 3, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 0 then fresh[#fresh + 1] = ARGV[i] end
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then left = window end
if #fresh == 0 then return {1, used, left, 0} end
if used + #fresh > budget then
  local first = redis.call('SET', KEYS[2], '1', 'NX', 'PX', left)
  return {0, used, left, first and 1 or 0}
end
for i = 1, #fresh do redis.call('SADD', KEYS[1], fresh[i]) end
if used == 0 then redis.call('PEXPIRE', KEYS[1], window) end
return {1, used + #fresh, left, 0}
