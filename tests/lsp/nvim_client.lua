-- Neovim 0.7's built-in LSP client driving workbench-lsp, for tst_nvim: opens WB_FILE, waits for
-- diagnostics, asks for a hover at WB_LINE:WB_CHAR and writes what it got to WB_OUT as JSON.
local result = {}
local ok, err = pcall(function()
  local file = os.getenv('WB_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'workbench',
    cmd = { os.getenv('WB_LSP_BIN') },
    root_dir = vim.fn.fnamemodify(file, ':h'),
  })
  assert(id, 'start_client failed')
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, message = d.message })
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = tonumber(os.getenv('WB_LINE')), character = tonumber(os.getenv('WB_CHAR')) },
  }
  local response = client.request_sync('textDocument/hover', params, 10000, buf)
  if response and response.result then result.hover = response.result.contents.value end
  client.stop()
end)
if not ok then result.error = tostring(err) end
local f = io.open(os.getenv('WB_OUT'), 'w')
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd('qa!')
