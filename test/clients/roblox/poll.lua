-- poll and pollRpc: the real callbacks and rpc answers parsed into blocks, batching past 200 codes.
local Harness = require("harness")

Harness.run(function()
  local link, http = Harness.link()
  local codes = {}
  for code in string.gmatch(Harness.env("CODES"), "[^,]+") do
    table.insert(codes, code)
  end
  local out = {}
  local blocks, err = link:poll(codes)
  out.callbacks = { blocks = blocks, err = err }
  blocks, err = link:pollRpc(codes)
  out.rpc = { blocks = blocks, err = err }
  local many = {}
  for i = 1, 250 do
    table.insert(many, string.format("Z%03d", i))
  end
  local before = #http.requests
  blocks, err = link:pollRpc(many)
  out.many = { count = blocks and #blocks or 0, requests = #http.requests - before, err = err }
  before = #http.requests
  blocks = link:poll({})
  out.none = { count = #blocks, requests = #http.requests - before }
  Harness.emit(out)
end)
