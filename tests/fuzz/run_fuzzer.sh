#!/usr/bin/env bash
# CTest's runner for one fuzz target: run_fuzzer.sh ARTIFACT_PREFIX FUZZER ARGS...
#
# Runs FUZZER ARGS... and, when it fails, prints every input it left under ARTIFACT_PREFIX
# (crash-, timeout-, leak-, oom-...) as base64 at the end of the log, with the command that
# replays it: CI keeps only the log, so the input that broke a run must be in it.
set -uo pipefail
prefix="$1"
fuzzer="$2"
shift 2
marker="$(mktemp)"
"$fuzzer" "$@"
status=$?
if ((status != 0)); then
  found=0
  for f in "$prefix"*; do
    [[ -f "$f" && ! "$f" -ot "$marker" ]] || continue  # left by this run
    found=1
    size=$(stat -c %s "$f")
    echo "=== fuzz input that failed: $f ($size bytes); replay with:"
    echo "===   base64 -d > input <<'B64' ... B64; $(basename "$fuzzer") input"
    echo "<<'B64'"
    head -c 65536 "$f" | base64
    echo "B64"
  done
  ((found)) || echo "=== $(basename "$fuzzer") failed (exit $status) and left no input under ${prefix}"
fi
rm -f "$marker"
exit "$status"
