#!/bin/sh
# `make fuzz-smoke` (part of `make test`): builds both fuzz binaries, replays every corpus and
# FailCases file of the engine targets, and fuzzes every target (wire and engine) for 3 s (the long runs are `make fuzz`).
# About 4 minutes on 2 cores from a clean build (see Tests/Fuzz/README.md).
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
status=0
FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-3}" scripts/fuzz.sh || status=$?
echo "fuzz smoke: $(( $(date +%s) - start ))s in total"
exit "$status"
