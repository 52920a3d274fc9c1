-- workbench-lsp in Neovim 0.7+: starts the server for `tvmscript` buffers with the built-in
-- client (setup) or through nvim-lspconfig (lspconfig), and the workbench commands, whichever
-- started the client:
--
--   :WorkbenchApplyPass [NAME]         run a pass or pipeline (chosen from the server's list)
--   :WorkbenchApplySchedule RECIPE     apply schedule steps (';' between steps) to the function
--                                      at the cursor
--   :WorkbenchPassSnapshots [PIPELINE] list a pipeline's passes; <CR> on one shows it
--   :WorkbenchApplyResult              (in a result tab) write the result into the file
--
-- Results open in a new tab: the module before and after, side by side in diff mode.
local M = {}

local defaults = {
  cmd = { 'workbench-lsp' },
  diagnostics_delay_ms = 150,
  -- The server's workspace: the nearest folder above the file holding one of these.
  root_markers = { '.git', 'CMakePresets.json', 'pyproject.toml' },
}
M.options = vim.deepcopy(defaults)

local NAME = 'workbench'
local clients = {} -- root dir -> client id (the built-in client path)
local warned_missing = false
local result_count = 0

local function notify(message, level)
  vim.notify('workbench: ' .. message, level or vim.log.levels.INFO)
end

function M.root_dir(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  for _, marker in ipairs(M.options.root_markers) do
    local hit = vim.fn.finddir(marker, dir .. ';')
    if hit == '' then hit = vim.fn.findfile(marker, dir .. ';') end
    if hit ~= '' then
      local path = vim.fn.fnamemodify(hit, ':p'):gsub('/$', '')
      return vim.fn.fnamemodify(path, ':h')
    end
  end
  return dir
end

-- Whether the server binary can be started; says why not (once), naming the option to set.
local function server_found()
  local cmd = M.options.cmd[1]
  if vim.fn.executable(cmd) == 1 then return true end
  if not warned_missing then
    warned_missing = true
    notify(
      ("the language server '%s' was not found. Build it (cmake --build --preset release --target "
        .. "workbench-lsp) and set its path: require('workbench').setup({ cmd = { "
        .. "'/path/to/build/release/lsp/workbench-lsp' } })"):format(cmd),
      vim.log.levels.ERROR
    )
  end
  return false
end

-- The client configuration, for vim.lsp.start_client and for nvim-lspconfig alike.
function M.client_config(root)
  return {
    name = NAME,
    cmd = M.options.cmd,
    root_dir = root,
    init_options = { diagnosticsDelayMs = M.options.diagnostics_delay_ms },
  }
end

-- Attaches `buf` to the client of its root, starting the client when there is none.
function M.attach(buf)
  -- Not the result tabs' scratch buffers: they are not files the server should open.
  if vim.bo[buf].buftype ~= '' or not server_found() then return nil end
  local root = M.root_dir(vim.api.nvim_buf_get_name(buf))
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    local config = M.client_config(root)
    config.on_exit = function() clients[root] = nil end
    id = vim.lsp.start_client(config)
    if not id then
      notify('workbench-lsp failed to start: ' .. table.concat(M.options.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(buf, id)
  return id
end

local function configure(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Absolute, so that a path relative to Neovim's directory still works when the client starts
  -- the server in the project's root (as nvim-lspconfig does).
  local found = vim.fn.exepath(M.options.cmd[1])
  if found ~= '' then M.options.cmd[1] = found end
  warned_missing = false
end

-- The built-in client: every `tvmscript` buffer, now and from now on, is attached.
function M.setup(opts)
  configure(opts)
  local group = vim.api.nvim_create_augroup('workbench_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'tvmscript',
    callback = function(args) M.attach(args.buf) end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'tvmscript' then M.attach(buf) end
  end
  M.create_commands()
end

-- nvim-lspconfig: registers `workbench` among its configurations (lspconfig.configs) and sets
-- it up with `lspconfig_opts` (on_attach, capabilities, ...), so lspconfig starts the client.
function M.lspconfig(opts, lspconfig_opts)
  configure(opts)
  local configs = require('lspconfig.configs')
  if not configs[NAME] then
    local config = M.client_config(nil)
    config.filetypes = { 'tvmscript' }
    config.root_dir = M.root_dir
    configs[NAME] = {
      default_config = config,
      docs = { description = 'workbench-lsp: the TVMScript language server of the workbench' },
    }
  end
  if server_found() then require('lspconfig')[NAME].setup(lspconfig_opts or {}) end
  M.create_commands()
end

-- The workbench client attached to `buf`, or nil with a message.
local function client_of(buf)
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == NAME then return c end
  end
  notify('no workbench-lsp attached to this buffer (is it a TVMScript file? :set filetype=tvmscript)',
    vim.log.levels.WARN)
  return nil
end

-- Sends a request and calls `on_result(result)`, or reports the error.
local function request(buf, method, params, on_result)
  local client = client_of(buf)
  if not client then return end
  client.request(method, params, function(err, result)
    if err then
      notify(method .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end, buf)
end

local function split_lines(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then table.remove(lines) end
  return lines
end

local function scratch(name, text)
  result_count = result_count + 1
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, split_lines(text))
  vim.api.nvim_buf_set_name(buf, ('workbench://%d/%s'):format(result_count, name))
  vim.bo[buf].filetype = 'tvmscript'
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  return buf
end

-- A new tab with `before` and `after` side by side in diff mode. `source` (a buffer, and its
-- changedtick when the result was asked for) makes :WorkbenchApplyResult available there.
local function show_result(title, before, after, source)
  local left = scratch(title .. ' (before)', before)
  local right = scratch(title .. ' (after)', after)
  vim.cmd('tab sbuffer ' .. left)
  vim.cmd('diffthis')
  vim.cmd('vertical rightbelow sbuffer ' .. right)
  vim.cmd('diffthis')
  if source then
    vim.api.nvim_buf_create_user_command(right, 'WorkbenchApplyResult', function()
      if not vim.api.nvim_buf_is_valid(source.buf) then
        notify('the file of this result is closed', vim.log.levels.WARN)
      elseif vim.api.nvim_buf_get_changedtick(source.buf) ~= source.tick then
        notify('the file changed since; run the command again', vim.log.levels.WARN)
      else
        vim.api.nvim_buf_set_lines(source.buf, 0, -1, false, split_lines(after))
        notify(title .. ' written into ' .. vim.api.nvim_buf_get_name(source.buf))
      end
    end, { desc = 'Write this result into the file it was computed from' })
  end
  return right
end

local function uri_of(buf) return vim.uri_from_bufnr(buf) end

local function run_pass(buf, name)
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  request(buf, 'workbench/passSnapshots', { textDocument = { uri = uri_of(buf) }, pipeline = name }, function(r)
    local last = r.passes[#r.passes]
    if not r.ok or not last then
      notify(('%s failed: %s'):format(name, r.error or 'no reason given'), vim.log.levels.ERROR)
      return
    end
    show_result(name, r.passes[1].before, last.after, { buf = buf, tick = tick })
  end)
end

-- The server's pipelines and passes: its `source.workbench.pass` code actions.
local function pass_choices(buf, on_choices)
  local start = { line = 0, character = 0 }
  request(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri_of(buf) },
    range = { start = start, ['end'] = start },
    context = { diagnostics = {}, only = { 'source.workbench.pass' } },
  }, function(actions)
    local names = {}
    for _, a in ipairs(actions or {}) do
      if a.data and a.data.pipeline then table.insert(names, a.data.pipeline) end
    end
    on_choices(names)
  end)
end

function M.apply_pass(name)
  local buf = vim.api.nvim_get_current_buf()
  if name and name ~= '' then return run_pass(buf, name) end
  pass_choices(buf, function(names)
    if #names == 0 then
      notify('the file does not parse; fix its errors before running a pass', vim.log.levels.WARN)
      return
    end
    vim.ui.select(names, { prompt = 'Pass or pipeline: ' }, function(choice)
      if choice then run_pass(buf, choice) end
    end)
  end)
end

-- The PrimFunc around the cursor, from the server's document symbols (module > functions).
local function enclosing_function(symbols, line)
  local found
  local function visit(list)
    for _, s in ipairs(list or {}) do
      if s.range.start.line <= line and line <= s.range['end'].line then
        if s.kind == 12 then found = s.name end -- SymbolKind.Function
        visit(s.children)
      end
    end
  end
  visit(symbols)
  return found
end

function M.apply_schedule(recipe_text)
  local buf = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local steps = {}
  for step in recipe_text:gmatch('[^;]+') do
    step = vim.trim(step)
    if step ~= '' then table.insert(steps, step) end
  end
  local recipe = table.concat(steps, '\n')
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  request(buf, 'textDocument/documentSymbol', { textDocument = { uri = uri_of(buf) } }, function(symbols)
    local func = enclosing_function(symbols, line)
    request(buf, 'workbench/applySchedule', { textDocument = { uri = uri_of(buf) }, recipe = recipe, funcName = func or '' },
      function(r)
        if not r.ok then
          local where = r.error.line and (' at recipe step %d'):format(r.error.line + 1) or ''
          local step = r.error.line and (' (in: %s)'):format(steps[r.error.line + 1] or '') or ''
          notify(('the schedule step failed%s: %s%s'):format(where, r.error.message, step), vim.log.levels.ERROR)
          return
        end
        local source_text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
        local after = show_result('schedule on ' .. (func or 'PrimFunc'), source_text, r.text, { buf = buf, tick = tick })
        vim.b[after].workbench_trace = r.trace
      end)
  end)
end

-- A tab listing the passes a pipeline ran; <CR> on a pass shows it before and after.
function M.pass_snapshots(pipeline)
  local buf = vim.api.nvim_get_current_buf()
  local params = { textDocument = { uri = uri_of(buf) } }
  if pipeline and pipeline ~= '' then params.pipeline = pipeline end
  request(buf, 'workbench/passSnapshots', params, function(r)
    if not r.ok then notify(('%s failed: %s'):format(r.pipeline, r.error or 'no reason given'), vim.log.levels.ERROR) end
    if #r.passes == 0 then return end
    local lines = { ('%s: %d passes (<CR> on a pass shows it before and after)'):format(r.pipeline, #r.passes) }
    for _, s in ipairs(r.passes) do
      local state = s.after == '' and 'failed' or (s.changed and 'changed' or 'unchanged')
      table.insert(lines, ('%3d. %-32s %9.2f ms  %s'):format(s.index + 1, s.name, s.milliseconds, state))
    end
    result_count = result_count + 1
    local list = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(list, 0, -1, false, lines)
    vim.api.nvim_buf_set_name(list, ('workbench://%d/%s passes'):format(result_count, r.pipeline))
    vim.bo[list].modifiable = false
    vim.bo[list].bufhidden = 'wipe'
    vim.cmd('tab sbuffer ' .. list)
    vim.keymap.set('n', '<CR>', function()
      local s = r.passes[vim.api.nvim_win_get_cursor(0)[1] - 1]
      if s then show_result(('%s (%d of %d)'):format(s.name, s.index + 1, #r.passes), s.before, s.after) end
    end, { buffer = list, desc = 'Show this pass before and after' })
  end)
end

function M.create_commands()
  vim.api.nvim_create_user_command('WorkbenchApplyPass', function(a) M.apply_pass(a.args) end,
    { nargs = '?', desc = 'workbench: run a pass or pipeline over the file' })
  vim.api.nvim_create_user_command('WorkbenchApplySchedule', function(a) M.apply_schedule(a.args) end,
    { nargs = '+', desc = "workbench: apply schedule steps (';' between them) to the function at the cursor" })
  vim.api.nvim_create_user_command('WorkbenchPassSnapshots', function(a) M.pass_snapshots(a.args) end,
    { nargs = '?', desc = "workbench: a pipeline's passes, each before and after" })
end

return M
