#!/usr/bin/env bash
# Builds one libFuzzer executable per Tests/Fuzz/Targets/<name>.swift (compiled together with
# every Swift file under Sources/RTPWire as one module) and runs each for $FUZZ_SECONDS.
#
#   FUZZ_SECONDS=20 scripts/fuzz.sh          # all targets
#   scripts/fuzz.sh rtcp                     # only the named targets
#
# Seeds come from Tests/Fuzz/Corpus/<name>/ (copied to a temporary directory, so corpus growth
# does not dirty the repository); crashes and other findings land in Tests/Fuzz/FailCases/<name>/,
# which FuzzCorpusReplayTests replays. Prints executions per target; exits non-zero on any finding
# or build failure.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
BUILD_DIR="$ROOT/Tests/Fuzz/.build"
mkdir -p "$BUILD_DIR"

mapfile -t SOURCES < <(find "$ROOT/Sources/RTPWire" -name '*.swift' | sort)
if [ "${#SOURCES[@]}" -eq 0 ]; then
    echo "fuzz.sh: no sources under Sources/RTPWire" >&2
    exit 2
fi

if [ "$#" -gt 0 ]; then
    TARGETS=()
    for name in "$@"; do TARGETS+=("$ROOT/Tests/Fuzz/Targets/$name.swift"); done
else
    shopt -s nullglob
    TARGETS=("$ROOT"/Tests/Fuzz/Targets/*.swift)
    shopt -u nullglob
fi
if [ "${#TARGETS[@]}" -eq 0 ]; then
    echo "fuzz.sh: no targets in Tests/Fuzz/Targets" >&2
    exit 2
fi

status=0
summary=()
for target in "${TARGETS[@]}"; do
    name=$(basename "$target" .swift)
    binary="$BUILD_DIR/fuzz-$name"
    echo "== $name: building ($((${#SOURCES[@]})) module files + $(basename "$target"))"
    build_log="$BUILD_DIR/build-$name.log"
    if ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 \
            -module-name "Fuzz_$name" "${SOURCES[@]}" "$target" -o "$binary" >"$build_log" 2>&1; then
        cat "$build_log" >&2
        echo "== $name: BUILD FAILED" >&2
        summary+=("$name: build failed")
        status=1
        continue
    fi

    # gold warns about every ASan helper symbol it cannot export; those are harmless.
    grep -v "Cannot export local symbol '__asan" "$build_log" || true

    corpus=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$name.XXXXXX")
    if [ -d "$ROOT/Tests/Fuzz/Corpus/$name" ]; then
        cp -R "$ROOT/Tests/Fuzz/Corpus/$name/." "$corpus/"
    fi
    artifacts="$ROOT/Tests/Fuzz/FailCases/$name"
    mkdir -p "$artifacts"
    log="$BUILD_DIR/fuzz-$name.log"

    echo "== $name: fuzzing for ${FUZZ_SECONDS}s"
    set +e
    "$binary" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=10 \
        -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
    rc=$?
    set -e
    rm -rf "$corpus"

    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    execs=${execs:-unknown}
    if [ "$rc" -ne 0 ]; then
        echo "== $name: FINDING (exit $rc) after $execs executions; log $log" >&2
        grep -E 'ERROR|Fatal error|SUMMARY|Test unit written|artifact' "$log" | head -n 20 >&2 || true
        summary+=("$name: $execs executions, FINDING (exit $rc)")
        status=1
    else
        echo "== $name: $execs executions, no findings"
        summary+=("$name: $execs executions, no findings")
    fi
done

echo
echo "fuzz summary (${FUZZ_SECONDS}s per target):"
for line in "${summary[@]}"; do echo "  $line"; done
exit "$status"
