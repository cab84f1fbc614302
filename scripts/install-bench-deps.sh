#!/usr/bin/env bash
# What `make bench` needs besides the build: valgrind (callgrind counts instructions per
# configuration; this VM has no hardware performance counters for perf) and binutils' strip
# (valgrind 3.19 cannot read the Swift toolchain's debug info, so it runs a stripped copy),
# and for `make bench-call` linux-perf (software cpu-clock sampling splits a call's CPU by library).
# Not used by `make test`.
set -euo pipefail
"$(dirname "${BASH_SOURCE[0]}")/apt-install-missing.sh" valgrind binutils linux-perf
