#!/bin/sh
# Smoke run of `simulcast-bench forward` for `make test` (a few seconds in a debug build): one
# publisher through ForwardingNode to 1, 8 and 64 loopback subscribers, then checks the JSON,
# including 0 heap allocations per forwarded packet over libsrtp's own with 8 subscribers.
#   make test line:  scripts/forward-smoke.sh
set -eu
SWIFT="${SWIFT:-swift}"
"$SWIFT" run simulcast-bench forward --quick --json out/forward-smoke.json > /dev/null
python3 scripts/check-forward-json.py out/forward-smoke.json
