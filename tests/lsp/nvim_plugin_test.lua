-- The Neovim plugin (lsp/nvim) in a headless Neovim 0.7 against the real workbench-lsp, for
-- run_nvim_plugin.sh: filetype detection, the syntax on top of Python's, the built-in client's
-- setup (and its message when the server is missing), and the workbench commands with their
-- result tabs; with WB_NVIM_MODE=lspconfig, the client started by nvim-lspconfig instead. Prints one line per check and "N passed, N failed", and exits non-zero on a
-- failure.
local server = assert(os.getenv('WB_LSP_BIN'), 'WB_LSP_BIN')
local source_dir = assert(os.getenv('WB_SOURCE_DIR'), 'WB_SOURCE_DIR')
local tmp = assert(os.getenv('WB_TMP'), 'WB_TMP')

local passed, failed = 0, 0
local function check(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
    io.stdout:write('ok - ' .. name .. '\n')
  else
    failed = failed + 1
    io.stdout:write('not ok - ' .. name .. ': ' .. tostring(err) .. '\n')
  end
end

local function expect(cond, message) if not cond then error(message, 2) end end
local function eq(a, b, what) expect(a == b, ('%s: expected %s, got %s'):format(what, vim.inspect(b), vim.inspect(a))) end

local function read(path)
  local f = assert(io.open(path, 'r'))
  local text = f:read('*a')
  f:close()
  return text
end
local function write(name, text)
  local path = tmp .. '/' .. name
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
  return path
end
local function buffer_text(buf) return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') end
local function filetype_of(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  return vim.bo.filetype
end
-- The 0-based line and column of `needle` in the current buffer.
local function find(needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    local at = line:find(needle, 1, true)
    if at then return i - 1, at - 1 end
  end
  error('not in the buffer: ' .. needle, 2)
end
local function syntax_at(needle, shift)
  local line, col = find(needle)
  return vim.fn.synIDattr(vim.fn.synID(line + 1, col + 1 + (shift or 0), 1), 'name')
end

local notes = {}
vim.notify = function(message, level) table.insert(notes, { message = message, level = level }) end

local matmul = read(source_dir .. '/resources/examples/matmul.py')
local matmul_path = write('matmul.py', matmul)

local function wait_for(what, fn)
  expect(vim.wait(20000, fn, 20), 'timed out waiting for ' .. what)
end

local function client_attached(buf)
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'workbench' and c.initialized then return true end
  end
  return false
end

local function new_tab(run)
  local tabs = vim.fn.tabpagenr('$')
  run()
  wait_for('a result tab', function() return vim.fn.tabpagenr('$') > tabs end)
end

local function diff_panes()
  local wins = vim.api.nvim_tabpage_list_wins(0)
  eq(#wins, 2, 'windows in the result tab')
  for _, w in ipairs(wins) do expect(vim.api.nvim_win_get_option(w, 'diff'), 'diff mode') end
  return vim.api.nvim_win_get_buf(wins[1]), vim.api.nvim_win_get_buf(wins[2])
end

-- nvim-lspconfig starts the client (WB_NVIM_LSPCONFIG, a checkout on the runtimepath), and the
-- workbench commands work on it.
local function lspconfig_checks()
  check('nvim-lspconfig: attached, diagnostics, a workbench command', function()
    require('workbench').lspconfig({ cmd = { server }, diagnostics_delay_ms = 0 })
    local broken = write('broken.py', matmul .. '\n\n    @T.prim_func\n    def broken(X: T.Buffer((4,), "float32")):\n        X[0] = vq\n')
    vim.cmd('edit ' .. vim.fn.fnameescape(broken))
    local buf = vim.api.nvim_get_current_buf()
    wait_for('diagnostics', function() return #vim.diagnostic.get(buf) > 0 end)
    expect(vim.diagnostic.get(buf)[1].message:find('vq', 1, true), vim.diagnostic.get(buf)[1].message)
    vim.cmd('edit ' .. vim.fn.fnameescape(matmul_path))
    local main = vim.api.nvim_get_current_buf()
    wait_for('the client on matmul.py', function() return client_attached(main) end)
    eq(#vim.lsp.get_active_clients(), 1, 'one client, started by lspconfig')
    new_tab(function() vim.cmd('WorkbenchApplyPass LowerInitBlock') end)
    local _, after = diff_panes()
    expect(not buffer_text(after):find('T.init()', 1, true), 'after has no T.init()')
  end)
end

local function builtin_checks()
  check('filetype detection', function()
    eq(filetype_of(matmul_path), 'tvmscript', 'a .py file with @I.ir_module')
    eq(filetype_of(write('plain.py', 'import os\n\n@functools.cache\ndef f():\n    pass\n')), 'python', 'plain Python')
    eq(filetype_of(write('k.tvmscript.py', 'x = 1\n')), 'tvmscript', '*.tvmscript.py')
    eq(filetype_of(write('late.py', string.rep('x = 1\n', 120) .. '@T.prim_func\ndef f():\n    pass\n')), 'python',
      'a decorator after the first 100 lines')
    eq(filetype_of(write('commented.py', '# @T.prim_func\nx = 1\n')), 'python', 'a commented-out decorator')
    vim.o.modeline = true
    eq(filetype_of(write('modeline.py', matmul .. '\n# vim: set ft=python:\n')), 'python', 'a modeline overrides')
    vim.g.tvmscript_detect_lines = 0
    eq(filetype_of(write('off.py', matmul)), 'python', 'g:tvmscript_detect_lines = 0')
    vim.g.tvmscript_detect_lines = nil
  end)

  check("Python's syntax with TVMScript's on top", function()
    vim.cmd('edit ' .. vim.fn.fnameescape(matmul_path))
    eq(vim.b.current_syntax, 'tvmscript', 'b:current_syntax')
    eq(syntax_at('T.grid'), 'tvmscriptNamespace', 'T of T.grid')
    eq(syntax_at('T.grid', 2), 'tvmscriptMember', 'grid of T.grid')
    eq(syntax_at('T.Buffer', 2), 'tvmscriptClass', 'Buffer of T.Buffer')
    eq(syntax_at('"float32"', 1), 'tvmscriptDtype', 'a dtype string')
    expect(syntax_at('T.sblock("C")', 9):match('^python') ~= nil, 'a string that is no dtype stays Python: ' .. syntax_at('T.sblock("C")', 9))
    eq(syntax_at('for i, j, k'), 'pythonRepeat', "Python's own")
    eq(vim.bo.shiftwidth, 4, "Python's ftplugin")
  end)

  local workbench = require('workbench')

  check('a missing server is a message naming the option', function()
    workbench.setup({ cmd = { tmp .. '/no/workbench-lsp' } })
    vim.cmd('edit ' .. vim.fn.fnameescape(write('missing.py', matmul)))
    eq(#vim.lsp.buf_get_clients(0), 0, 'clients attached')
    local last = notes[#notes]
    expect(last and last.level == vim.log.levels.ERROR, 'an error was shown')
    expect(last.message:find("'" .. tmp .. "/no/workbench-lsp' was not found", 1, true), last.message)
    expect(last.message:find('setup({ cmd = {', 1, true), last.message)
  end)

  local main_buf
  check('the built-in client: attached to TVMScript buffers, diagnostics', function()
    workbench.setup({ cmd = { server }, diagnostics_delay_ms = 0 })
    local broken = write('broken.py', matmul .. '\n\n    @T.prim_func\n    def broken(X: T.Buffer((4,), "float32")):\n        X[0] = vq\n')
    vim.cmd('edit ' .. vim.fn.fnameescape(broken))
    local buf = vim.api.nvim_get_current_buf()
    wait_for('diagnostics', function() return #vim.diagnostic.get(buf) > 0 end)
    local d = vim.diagnostic.get(buf)[1]
    local line, col = find('vq')
    eq(d.lnum, line, 'diagnostic line')
    eq(d.col, col, 'diagnostic column')
    vim.cmd('edit ' .. vim.fn.fnameescape(matmul_path))
    main_buf = vim.api.nvim_get_current_buf()
    wait_for('the client on matmul.py', function() return client_attached(main_buf) end)
    eq(#vim.lsp.get_active_clients(), 1, 'one client for the folder')
    expect(not client_attached(vim.api.nvim_create_buf(false, true)), 'no client on a scratch buffer')
  end)

  check(':WorkbenchPassSnapshots lists the passes; <CR> shows one before and after', function()
    vim.api.nvim_set_current_buf(main_buf)
    new_tab(function() vim.cmd('WorkbenchPassSnapshots') end)
    local list = buffer_text(0)
    expect(list:find('LowerInitBlock', 1, true), list)
    local line = find('. LowerInitBlock')
    expect(vim.api.nvim_buf_get_lines(0, line, line + 1, false)[1]:find('changed$'), list)
    vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
    new_tab(function() vim.cmd('execute "normal \\<CR>"') end)
    local before, after = diff_panes()
    expect(buffer_text(before):find('T.init()', 1, true), 'before has T.init()')
    expect(not buffer_text(after):find('T.init()', 1, true), 'after has no T.init()')
    eq(vim.bo[after].filetype, 'tvmscript', 'result filetype')
  end)

  check(':WorkbenchApplyPass NAME, then :WorkbenchApplyResult writes it into the file', function()
    vim.cmd('tabfirst')
    vim.api.nvim_set_current_buf(main_buf)
    new_tab(function() vim.cmd('WorkbenchApplyPass LowerInitBlock') end)
    local _, after = diff_panes()
    expect(not buffer_text(after):find('T.init()', 1, true), 'after has no T.init()')
    vim.api.nvim_set_current_win(vim.fn.bufwinid(after))
    vim.cmd('WorkbenchApplyResult')
    expect(not buffer_text(main_buf):find('T.init()', 1, true), 'the file was rewritten')
    expect(buffer_text(main_buf):find('def main', 1, true), 'the file holds the module')
    vim.api.nvim_buf_set_lines(main_buf, 0, -1, false, vim.split(matmul, '\n', { plain = true }))
  end)

  check(':WorkbenchApplyPass offers the server registry', function()
    vim.cmd('tabfirst')
    vim.api.nvim_set_current_buf(main_buf)
    local offered
    local select = vim.ui.select
    vim.ui.select = function(items, _, on_choice)
      offered = items
      on_choice('LowerInitBlock')
    end
    new_tab(function() vim.cmd('WorkbenchApplyPass') end)
    vim.ui.select = select
    expect(vim.tbl_contains(offered, 'zero_pipeline'), vim.inspect(offered))
    expect(vim.tbl_contains(offered, 'LowerInitBlock'), vim.inspect(offered))
  end)

  check(':WorkbenchApplySchedule on the function at the cursor', function()
    vim.cmd('tabfirst')
    vim.api.nvim_set_current_buf(main_buf)
    vim.api.nvim_win_set_cursor(0, { find('for i, j, k') + 1, 0 })
    new_tab(function()
      vim.cmd('WorkbenchApplySchedule b0 = sch.get_sblock(name="C"); l1, l2, l3 = sch.get_loops(block=b0); '
        .. 'l4, l5 = sch.split(loop=l1, factors=[None, 32])')
    end)
    local _, after = diff_panes()
    expect(buffer_text(after):find('for i_0, i_1, j, k in T.grid(8, 32, 256, 256)', 1, true), buffer_text(after))
    expect(vim.b[after].workbench_trace:find('sch.split(loop=l1, factors=[None, 32]', 1, true), vim.b[after].workbench_trace)
  end)

  check('a schedule step that does not apply says which', function()
    vim.cmd('tabfirst')
    vim.api.nvim_set_current_buf(main_buf)
    local before = #notes
    vim.cmd('WorkbenchApplySchedule b0 = sch.get_sblock(name="C"); b1 = sch.get_sblock(name="NoSuchBlock")')
    wait_for('the error', function() return #notes > before end)
    local m = notes[#notes].message
    expect(m:find('at recipe step 2', 1, true) and m:find('NoSuchBlock', 1, true), m)
  end)

end

if os.getenv('WB_NVIM_MODE') == 'lspconfig' then lspconfig_checks() else builtin_checks() end

for _, c in ipairs(vim.lsp.get_active_clients()) do c.stop() end
io.stdout:write(('%d passed, %d failed\n'):format(passed, failed))
vim.cmd('cquit ' .. (failed == 0 and 0 or 1))
