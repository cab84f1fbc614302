#!/bin/sh
# Runs the virtual-time room tests (VirtualTime*Tests) RUNS times in a row (default 50) on the
# build already made (`swift build --build-tests` first) and stops at the first failing run.
# Issue 27 item 4's acceptance: 50 of 50. Prints each run's wall time and the count passed.
set -u
runs=${1:-50}
swift=${SWIFT:-swift}
passed=0
i=1
while [ "$i" -le "$runs" ]; do
    start=$(date +%s.%N)
    if ! "$swift" test --skip-build --filter 'VirtualTime' > "/tmp/virtual-time-run-$i.log" 2>&1; then
        echo "run $i FAILED (log: /tmp/virtual-time-run-$i.log)"
        echo "$passed of $runs passed"
        exit 1
    fi
    end=$(date +%s.%N)
    echo "run $i passed in $(echo "$end - $start" | bc) s"
    rm -f "/tmp/virtual-time-run-$i.log"
    passed=$((passed + 1))
    i=$((i + 1))
done
echo "$passed of $runs passed"
