-- codes: the shared tables through the module's normalizer and parser (Blocks), as the module is loaded (the tree, or
-- the single script with PRESENCE_LINK_FORM=single): typed codes (test/fixtures/typed-codes.json), the grammar vectors
-- (test/fixtures/blocks.json) and, when CORPUS names a file, the rendered responses in it ([{ kind, text }]). The tap
-- test compares each result with what the TypeScript reference gives.
local Harness = require("harness")
local PresenceLink = require("PresenceLink")

local function parse(case)
  local fn = if case.kind == "rpc" then PresenceLink.parseRpc else PresenceLink.parseCallbacks
  local parsed, err = fn(case.text)
  if parsed ~= nil then
    return { ok = true, blocks = parsed }
  end
  return { ok = false, line = err.line, error = err.message }
end

local typed = {}
for _, case in Harness.readJson("test/fixtures/typed-codes.json") do
  table.insert(typed, { typed = case.typed, candidates = PresenceLink.codeCandidates(case.typed) })
end
local blocks = {}
for _, case in Harness.readJson("test/fixtures/blocks.json") do
  table.insert(blocks, { name = case.name, result = parse(case) })
end
local corpus = {}
local corpusPath = Engine.env("CORPUS")
if corpusPath ~= nil then
  for _, case in Harness.readJson(corpusPath) do
    table.insert(corpus, parse(case))
  end
end
Harness.emit({ typed = typed, blocks = blocks, corpus = corpus, version = PresenceLink.VERSION })
