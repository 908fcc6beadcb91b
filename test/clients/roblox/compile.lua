-- compile: each file of FILES (comma-separated repository paths) compiled by the Luau compiler, as Studio would; a
-- syntax error makes the file's `ok` false, with the compiler's message.
local Harness = require("harness")

local out = {}
for path in string.gmatch(Harness.env("FILES"), "[^,]+") do
  local ok, err = pcall(Engine.compile, path)
  table.insert(out, { file = path, ok = ok, error = if ok then nil else tostring(err) })
end
Harness.emit(out)
