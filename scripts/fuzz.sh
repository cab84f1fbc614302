#!/usr/bin/env bash
# Builds one libFuzzer binary (Tests/Fuzz/FuzzEntry.swift + every Swift file of Sources/RTPWire,
# -sanitize=fuzzer,address) and runs it for each wire parser for $FUZZ_SECONDS, then runs the
# engine targets (file readers, SRTP, publisher/subscriber/node datagrams) with scripts/fuzz-engine.sh.
#
#   make fuzz FUZZ_SECONDS=60                # every target (rtp rtpview vp8 opus rtcp pcap stun sdp framing + the engine's)
#   FUZZ_SECONDS=20 scripts/fuzz.sh rtcp     # only the named targets (wire or engine)
#   make fuzz-smoke                          # every target for 3 s (part of `make test`)
#
# The checks are WireRoundTripCheck's (Sources/RTPWire), the same ones the replay unit test runs.
# Seeds come from Tests/Fuzz/Corpus/<target>/ (copied to a temporary directory, so corpus growth
# does not dirty the repository); findings land in Tests/Fuzz/FailCases/<target>/, which
# FuzzCorpusReplayTests replays in `make test`. Prints executions per target; exits non-zero on
# any finding or build failure.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
source "$ROOT/scripts/fuzz-lib.sh"
# The Swift runtime's backtracer and AddressSanitizer fight over a crash (ASan reports the
# backtracer's memory reads, and the backtracer process can outlive the fuzzer holding its output
# open); libFuzzer and ASan print the stack and keep the input themselves.
export SWIFT_BACKTRACE=enable=no
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
BUILD_DIR="$ROOT/Tests/Fuzz/.build"
BINARY="$BUILD_DIR/fuzz-wire"
mkdir -p "$BUILD_DIR"

WIRE_TARGETS=(rtp rtpview vp8 opus rtcp pcap stun sdp framing)
ENGINE_TARGETS=(y4m ivf wav pcapfile srtp publisher subscriber node ice dtls janus turn bundle)
if [ "$#" -gt 0 ]; then
    TARGETS=()
    ENGINE=()
    for name in "$@"; do
        case " ${ENGINE_TARGETS[*]} " in *" $name "*) ENGINE+=("$name") ;; *) TARGETS+=("$name") ;; esac
    done
else
    TARGETS=("${WIRE_TARGETS[@]}")
    ENGINE=("${ENGINE_TARGETS[@]}")
fi

# The wire parsers: one binary, FUZZ_TARGET picks the parser.
run_wire_targets() {
    mapfile -t SOURCES < <(find "$ROOT/Sources/RTPWire" -name '*.swift' | sort)
    echo "== building $BINARY (${#SOURCES[@]} module files + FuzzEntry.swift)"
    if ! "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -module-name FuzzWire \
            "${SOURCES[@]}" "$ROOT/Tests/Fuzz/FuzzEntry.swift" -o "$BINARY" >"$BUILD_DIR/build.log" 2>&1; then
        cat "$BUILD_DIR/build.log" >&2
        echo "fuzz.sh: BUILD FAILED" >&2
        return 1
    fi
    # gold warns about every ASan helper symbol it cannot export; those are harmless.
    grep -v "Cannot export local symbol '__asan" "$BUILD_DIR/build.log" || true

    summary=()
    for name in "${TARGETS[@]}"; do
        corpus=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$name.XXXXXX")
        if [ -d "$ROOT/Tests/Fuzz/Corpus/$name" ]; then cp -R "$ROOT/Tests/Fuzz/Corpus/$name/." "$corpus/"; fi
        artifacts="$ROOT/Tests/Fuzz/FailCases/$name"
        mkdir -p "$artifacts"
        log="$BUILD_DIR/fuzz-$name.log"
        echo "== $name: fuzzing for ${FUZZ_SECONDS}s"
        set +e
        FUZZ_TARGET="$name" "$BINARY" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=10 \
            -rss_limit_mb=2048 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
        rc=$?
        set -e
        rm -rf "$corpus"
        record_fuzz_result "$name" "$rc" "$log"
    done

    echo
    echo "fuzz summary (${FUZZ_SECONDS}s per target):"
    for line in "${summary[@]}"; do echo "  $line"; done
    return "$status"
}

status=0
if [ "${#TARGETS[@]}" -gt 0 ]; then run_wire_targets || status=1; fi
if [ "${#ENGINE[@]}" -gt 0 ]; then
    FUZZ_SECONDS="$FUZZ_SECONDS" "$ROOT/scripts/fuzz-engine.sh" "${ENGINE[@]}" || status=1
fi
exit "$status"
