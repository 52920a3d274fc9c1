#!/usr/bin/env bash
# CTest: packages the VS Code extension as a .vsix (npm run package: @vscode/vsce) and checks
# what the package holds: the compiled extension, grammar and manifest and the runtime
# dependencies, none of the sources, tests or build tools. Exits 77 (skipped) with the reason
# where Node.js 20 or later is missing (vsce 3 needs it).
# usage: run_vscode_package.sh EXTENSION_DIR
set -euo pipefail
ext="$1"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ((major < 20)); then
  echo "SKIPPED: packaging the VS Code extension needs Node.js 20 or later (@vscode/vsce 3); found: $(node --version 2>/dev/null || echo none)"
  exit 77
fi
if [[ ! -f "$ext/node_modules/@vscode/vsce/package.json" ]]; then
  echo "error: $ext/node_modules is missing: run scripts/bootstrap (npm ci in lsp/vscode)" >&2
  exit 1
fi
cd "$ext"
rm -f workbench-tvmscript.vsix
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
npm run --silent package >"$log" 2>&1 || { cat "$log"; exit 1; }
listing="$(unzip -Z1 workbench-tvmscript.vsix)"
status=0
for wanted in extension/package.json extension/out/src/extension.js extension/out/src/commands.js \
    extension/syntaxes/tvmscript.tmLanguage.json extension/language-configuration.json \
    extension/node_modules/vscode-languageclient/package.json; do
  grep -qx "$wanted" <<<"$listing" || { echo "missing from the .vsix: $wanted"; status=1; }
done
for unwanted in '^extension/src/' '^extension/test/' '^extension/out/test/' '\.ts$' '\.map$' \
    '^extension/node_modules/(typescript|eslint|@vscode/vsce|tm-grammars)/'; do
  if grep -qE "$unwanted" <<<"$listing"; then
    echo "in the .vsix but should not be: $(grep -E "$unwanted" <<<"$listing" | head -3 | tr '\n' ' ')"
    status=1
  fi
done
((status == 0)) && echo "workbench-tvmscript.vsix: $(wc -l <<<"$listing") files, $(stat -c %s workbench-tvmscript.vsix) bytes"
exit $status
