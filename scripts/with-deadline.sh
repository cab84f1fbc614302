#!/usr/bin/env bash
# Runs COMMAND in a process group of its own and ends the whole group (swift test and the
# xctest process it starts) if it is still running after SECONDS: a hung test then fails
# `make test` in minutes with a clear line, instead of holding CI until its own limit.
#
#   scripts/with-deadline.sh SECONDS COMMAND [ARG...]
set -uo pipefail
seconds="$1"
shift
setsid "$@" &
group=$!
# Ctrl-C or a TERM to this script reaches the group too (it is in a session of its own).
trap 'kill -TERM -- "-$group" 2>/dev/null' INT TERM
(
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$seconds" &
    sleeper=$!
    wait "$sleeper"
    if kill -0 -- "-$group" 2>/dev/null; then
        echo "with-deadline: '$*' still running after ${seconds} s; ending it (tests that started but never passed are the hung ones)" >&2
        kill -TERM -- "-$group" 2>/dev/null
        sleep 10
        kill -KILL -- "-$group" 2>/dev/null
    fi
) &
watchdog=$!
wait "$group"
status=$?
kill "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
exit "$status"
