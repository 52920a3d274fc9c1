#!/usr/bin/env bash
# CTest: compiles (tsc), lints (eslint) and tests (node --test) the VS Code extension in
# lsp/vscode against the real workbench-lsp. Exits 77, which CTest reports as skipped, with the
# reason where Node.js is missing.
# usage: run_vscode_extension.sh EXTENSION_DIR WORKBENCH_LSP
set -euo pipefail
ext="$1"
export WB_LSP_BIN="$2"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed, so the VS Code extension is not built or tested (scripts/bootstrap installs Debian's nodejs)"
  exit 77
fi
if [[ ! -f "$ext/node_modules/vscode-languageclient/package.json" ]]; then
  echo "error: $ext/node_modules is missing: run scripts/bootstrap (npm ci in lsp/vscode)" >&2
  exit 1
fi
cd "$ext"
npm run --silent compile
npm run --silent lint
npm run --silent test
