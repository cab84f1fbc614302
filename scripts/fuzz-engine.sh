#!/usr/bin/env bash
# Builds the engine fuzz targets (Tests/Fuzz/EngineTargets: a SwiftPM package depending on this one
# by path, compiled with -sanitize=fuzzer,address) and, for each target, first replays every file
# of Tests/Fuzz/Corpus/<target>/ and Tests/Fuzz/FailCases/<target>/ (a crash, leak or violated
# invariant there fails the run), then fuzzes it for $FUZZ_SECONDS.
#
#   scripts/fuzz-engine.sh                        # every target: y4m ivf wav pcapfile srtp publisher subscriber node ice dtls janus turn bundle
#   FUZZ_SECONDS=20 scripts/fuzz-engine.sh node   # only the named targets
#   scripts/fuzz-engine.sh --seeds                # rewrite the seed corpora Tests/Fuzz/Corpus/<target>/
#
# scripts/fuzz.sh calls this after the wire targets. Seeds are copied to a temporary directory (corpus
# growth does not dirty the repository); findings land in Tests/Fuzz/FailCases/<target>/. Prints
# executions per target; exits non-zero on any finding or build failure.
#
# Tests/Fuzz/known-findings.txt lists `<target> amplification <why>` lines: for those targets the
# amplification invariant (bytes sent per input byte) is reported as a known finding instead of
# failing, until the fix lands and the line is deleted. Crashes and other invariants still fail.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
source "$ROOT/scripts/fuzz-lib.sh"
# The Swift runtime's backtracer and AddressSanitizer fight over a crash (ASan reports the
# backtracer's memory reads, and the backtracer process can outlive the fuzzer holding its output
# open); libFuzzer and ASan print the stack and keep the input themselves.
export SWIFT_BACKTRACE=enable=no
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
PACKAGE="$ROOT/Tests/Fuzz/EngineTargets"
BUILD_DIR="$ROOT/Tests/Fuzz/.build/engine"
LOG_DIR="$ROOT/Tests/Fuzz/.build"
ALL_TARGETS=(y4m ivf wav pcapfile srtp publisher subscriber node ice dtls janus turn bundle)
mkdir -p "$LOG_DIR"

# --sanitize=fuzzer makes SwiftPM compile executables with -parse-as-library and link libFuzzer's
# main; -Xswiftc -sanitize=fuzzer,address is still needed because swiftc keeps only the last of
# several -sanitize= flags (coverage or ASan would be lost in some modules). --disable-dead-strip:
# gold's --gc-sections drops the coverage counters' registration (libFuzzer then sees 1 edge).
build() {
    "$SWIFT" build -c release --package-path "$PACKAGE" --build-path "$BUILD_DIR" --disable-dead-strip \
        --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address >"$LOG_DIR/engine-build.log" 2>&1
}
echo "== building the engine fuzz targets ($PACKAGE)"
start=$(date +%s)
if ! build; then
    # SwiftPM does not always recompile this package's modules when a public signature of the
    # root package changes (seen as undefined symbols at link time): retry once from scratch.
    echo "== incremental build failed; building from scratch" >&2
    rm -rf "$BUILD_DIR"
    if ! build; then
        cat "$LOG_DIR/engine-build.log" >&2
        echo "fuzz-engine.sh: BUILD FAILED" >&2
        exit 1
    fi
fi
echo "== built in $(( $(date +%s) - start ))s"
BINARY="$BUILD_DIR/release/fuzz-engine"

if [ "${1:-}" = "--seeds" ]; then
    # exit() from inside LLVMFuzzerInitialize leaves a few strings alive: not a leak worth a report.
    FUZZ_WRITE_SEEDS="$ROOT/Tests/Fuzz/Corpus" ASAN_OPTIONS=detect_leaks=0 "$BINARY"
    exit 0
fi
if [ "$#" -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

# A hang is an input running 10 s; one allocation above 256 MB is a finding too (inputs are a few
# KB, so that much memory means a declared size was trusted).
LIMITS="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256"

known_amplification() {
    [ -f "$ROOT/Tests/Fuzz/known-findings.txt" ] &&
        grep -Eq "^$1[[:space:]]+amplification([[:space:]]|$)" "$ROOT/Tests/Fuzz/known-findings.txt"
}

status=0
summary=()
for name in "${TARGETS[@]}"; do
    case " ${ALL_TARGETS[*]} " in *" $name "*) ;; *) echo "fuzz-engine.sh: unknown target $name" >&2; exit 2 ;; esac
    amplification=on
    note=""
    if known_amplification "$name"; then
        amplification=off
        note=" (amplification check off: known finding, see Tests/Fuzz/known-findings.txt)"
    fi
    artifacts="$ROOT/Tests/Fuzz/FailCases/$name"
    mkdir -p "$artifacts"
    log="$LOG_DIR/fuzz-$name.log"

    # Replay: every seed and every earlier finding, once each.
    mapfile -t replay < <(find "$ROOT/Tests/Fuzz/Corpus/$name" "$artifacts" -type f ! -name '.*' 2>/dev/null | sort)
    if [ "${#replay[@]}" -gt 0 ]; then
        if ! FUZZ_TARGET="$name" FUZZ_AMPLIFICATION_CHECK="$amplification" "$BINARY" $LIMITS \
                "${replay[@]}" >"$LOG_DIR/replay-$name.log" 2>&1; then
            echo "== $name: REPLAY FAILED ($LOG_DIR/replay-$name.log)" >&2
            grep -E 'Running:|ERROR|Fatal error|SUMMARY' "$LOG_DIR/replay-$name.log" | tail -n 6 >&2 || true
            summary+=("$name: replay of ${#replay[@]} files FAILED")
            status=1
            continue
        fi
    fi

    corpus=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-$name.XXXXXX")
    seeds=("$corpus")
    if [ -d "$ROOT/Tests/Fuzz/Corpus/$name" ]; then cp -R "$ROOT/Tests/Fuzz/Corpus/$name/." "$corpus/"; fi
    # The file-path pcap target starts from the wire pcap target's seeds too.
    if [ "$name" = pcapfile ]; then seeds+=("$ROOT/Tests/Fuzz/Corpus/pcap"); fi
    echo "== $name: replayed ${#replay[@]} files; fuzzing for ${FUZZ_SECONDS}s$note"
    set +e
    FUZZ_TARGET="$name" FUZZ_AMPLIFICATION_CHECK="$amplification" "$BINARY" -max_total_time="$FUZZ_SECONDS" \
        -print_final_stats=1 $LIMITS -artifact_prefix="$artifacts/" "${seeds[@]}" >"$log" 2>&1
    rc=$?
    set -e
    rm -rf "$corpus"
    record_fuzz_result "$name" "$rc" "$log" "$note"
done

echo
echo "engine fuzz summary (${FUZZ_SECONDS}s per target):"
for line in "${summary[@]}"; do echo "  $line"; done
exit "$status"
