-- TVMScript files are Python files: *.tvmscript.py, and *.py files whose first lines use one of
-- TVM's decorators (lua/workbench/detect.lua). Sourced inside the filetypedetect group, after
-- Neovim's own rules made them Python; a modeline (`# vim: set ft=python:`) still has the last
-- word, and g:tvmscript_detect_lines = 0 turns the content check off.
vim.cmd([[
  autocmd BufNewFile,BufRead *.tvmscript.py set filetype=tvmscript
  autocmd BufRead *.py lua require('workbench.detect').apply(tonumber(vim.fn.expand('<abuf>')))
]])
