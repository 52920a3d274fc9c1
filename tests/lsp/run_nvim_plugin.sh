#!/usr/bin/env bash
# CTest: the Neovim plugin (lsp/nvim) in a headless Neovim against the real workbench-lsp
# (nvim_plugin_test.lua). Exits 77, which CTest reports as skipped, with the reason where
# Neovim is missing.
# usage: run_nvim_plugin.sh SOURCE_DIR WORKBENCH_LSP
set -euo pipefail
if ! command -v nvim >/dev/null 2>&1; then
  echo "SKIPPED: nvim is not installed, so the Neovim plugin is not tested (scripts/bootstrap installs Debian's neovim)"
  exit 77
fi
export WB_SOURCE_DIR="$1" WB_LSP_BIN="$2"
WB_TMP="$(mktemp -d)"
export WB_TMP
trap 'rm -rf "$WB_TMP"' EXIT
# No user configuration (HOME, --clean); the plugin on the runtimepath before filetype
# detection starts, as a plugin manager puts it.
HOME="$WB_TMP" nvim --headless --clean --cmd "set runtimepath^=$WB_SOURCE_DIR/lsp/nvim" \
  -c "luafile $WB_SOURCE_DIR/tests/lsp/nvim_plugin_test.lua"
