#!/bin/sh
# Smoke run of `simulcast-bench wire` for `make test` (a few hundred ms in a debug build):
# runs every wire operation briefly and checks the JSON is complete. No timing thresholds.
#   make test line:  scripts/wire-smoke.sh
set -eu
SWIFT="${SWIFT:-swift}"
"$SWIFT" run simulcast-bench wire --iterations 200 --json out/wire-smoke.json > /dev/null
python3 scripts/check-wire-json.py out/wire-smoke.json
