-- By hand, not a test: docs/roblox.md's "Trying it without Roblox". Binds CODE as Builderman (id 156), polls it,
-- and watches it for WATCH_SECONDS (10) as in Studio, printing what a game server would see (text filtered by the
-- stand-in TextService). Needs BASE_URL, API_KEY, CODE.
local Harness = require("harness")

local function show(block)
  if block.marker == ":" then
    return block.code .. " : " .. block.message .. (block.username and (" (" .. block.username .. ")") or "")
  end
  local parts = {}
  for i = 1, #block.activities do
    table.insert(parts, table.concat(block.activities[i].lines, " / "))
  end
  local who = block.username and (block.username .. ": ") or ""
  if #parts == 0 then
    return block.code .. " ; " .. who .. (block.username and "No activity" or "(empty)")
  end
  return block.code .. " ; " .. who .. table.concat(parts, " | ")
end

Harness.run(function()
  -- Builderman is in this server, so his text can be filtered (the stand-in censors Harness.CENSORED).
  local link = Harness.link({ pollInterval = 2, inServer = { { Name = "Builderman", UserId = 156 } } })
  local typed = Harness.env("CODE")
  local result = link:bind({ Name = "Builderman", UserId = 156 }, typed)
  local code = result.code or typed
  print("bind " .. string.format("%q", typed) .. " as " .. tostring(code) .. ": " .. tostring(result.status) .. " - " .. tostring(result.message) .. (result.detail and (" [" .. result.detail .. "]") or ""))
  local blocks, err = link:poll({ code, "ZZZZ" })
  if blocks == nil then
    print("poll failed: " .. tostring(err.detail))
  else
    for i = 1, #blocks do
      print("poll   " .. show(blocks[i]))
    end
  end
  blocks = link:pollRpc({ code })
  for i = 1, #(blocks or {}) do
    print("rpc    " .. show(blocks[i]))
  end
  local watcher = link:watch({ code }, function(block)
    print("watch  " .. show(block))
  end, { onError = function(e)
    print("watch  (" .. tostring(e.detail) .. "; polling every 2 s)")
  end })
  Harness.sleep(tonumber(Engine.env("WATCH_SECONDS") or "10"))
  local mode = watcher.mode
  watcher:stop()
  print("watch  was in mode " .. mode .. " (stream: blocks pushed by the service; poll: the fallback); stopped")
end)
