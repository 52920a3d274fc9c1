#!/usr/bin/env bash
# CTest: the Neovim plugin (lsp/nvim) in a headless Neovim against the real workbench-lsp
# (nvim_plugin_test.lua). Exits 77, which CTest reports as skipped, with the reason where
# Neovim is missing.
# With WB_NVIM_LSPCONFIG set to an nvim-lspconfig checkout (one for Neovim 0.7, such as v0.1.6;
# Debian has no package of it), the client started by lspconfig is tested too.
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
mkdir "$WB_TMP/home"
# No user configuration (HOME, --clean); the plugin on the runtimepath before filetype
# detection starts, as a plugin manager puts it.
run() {
  HOME="$WB_TMP/home" nvim --headless --clean --cmd "set runtimepath^=$WB_SOURCE_DIR/lsp/nvim" "$@" \
    -c "luafile $WB_SOURCE_DIR/tests/lsp/nvim_plugin_test.lua"
}
run
if [[ -n "${WB_NVIM_LSPCONFIG:-}" ]]; then
  WB_NVIM_MODE=lspconfig run --cmd "set runtimepath^=$WB_NVIM_LSPCONFIG"
else
  echo "not tested: the client started by nvim-lspconfig (set WB_NVIM_LSPCONFIG to an nvim-lspconfig checkout)"
fi
