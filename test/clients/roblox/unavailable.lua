-- 503: a bind the service cannot finish in time (no worker runs in this stack).
local Harness = require("harness")

Harness.run(function()
  local link = Harness.link()
  local result = link:bind({ Name = "Late_Player", UserId = 5150 }, Harness.env("CODE"))
  Harness.emit({ bind = result })
end)
