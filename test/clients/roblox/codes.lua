-- The shared tables: typed codes (test/fixtures/typed-codes.json) and blocks (test/fixtures/blocks.json), through
-- the module's normalizer and parser; the tap test compares with the same tables' expectations.
local Harness = require("harness")
local PresenceLink = require("PresenceLink")

local typed = {}
for _, case in ipairs(Harness.readJson("test/fixtures/typed-codes.json")) do
  table.insert(typed, { typed = case.typed, candidates = PresenceLink.codeCandidates(case.typed) })
end
local blocks = {}
for _, case in ipairs(Harness.readJson("test/fixtures/blocks.json")) do
  local parse = case.kind == "rpc" and PresenceLink.parseRpc or PresenceLink.parseCallbacks
  local parsed, err = parse(case.text)
  if parsed ~= nil then
    table.insert(blocks, { name = case.name, result = { ok = true, blocks = parsed } })
  else
    table.insert(blocks, { name = case.name, result = { ok = false, line = err.line, error = err.message } })
  end
end
Harness.emit({ typed = typed, blocks = blocks })
