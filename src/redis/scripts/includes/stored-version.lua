--[[
  The MySQL row version of a copy's stored value, whose last `|`-separated field is that version.

    Input:
      value    the stored value (false when the field is absent)
      fields   how many `|`-separated fields a value with a version has

    Output:
      -1 when there is no value; 0 for a value from before versions (another number of fields); else the version
]]
local function stored_version(value, fields)
  if not value then return -1 end
  local _, pipes = string.gsub(value, '|', '')
  if pipes ~= fields - 1 then return 0 end
  return tonumber(string.match(value, '|(%d+)$')) or 0
end
