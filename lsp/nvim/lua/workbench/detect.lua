-- Which Python files hold TVMScript: one of TVM's decorators (@T.prim_func, @R.function,
-- @I.ir_module) at the start of one of the first lines, as the VS Code extension decides.
local M = {}

local DECORATORS = { 'T%.prim_func', 'R%.function', 'I%.ir_module' }

function M.is_tvmscript_lines(lines)
  for _, line in ipairs(lines) do
    for _, decorator in ipairs(DECORATORS) do
      local rest = line:match('^%s*@' .. decorator .. '(.*)$')
      if rest and not rest:match('^[%w_]') then return true end
    end
  end
  return false
end

-- How many first lines are looked at: g:tvmscript_detect_lines (100); 0 turns detection off
-- (*.tvmscript.py, :set filetype=tvmscript and modelines still work).
function M.first_lines()
  local n = vim.g.tvmscript_detect_lines
  if n == nil then return 100 end
  return tonumber(n) or 0
end

-- Called by ftdetect on every *.py buffer read, after Neovim made it Python.
function M.apply(buf)
  local n = M.first_lines()
  if n <= 0 or vim.bo[buf].filetype == 'tvmscript' then return end
  if M.is_tvmscript_lines(vim.api.nvim_buf_get_lines(buf, 0, n, false)) then
    vim.bo[buf].filetype = 'tvmscript'
  end
end

return M
