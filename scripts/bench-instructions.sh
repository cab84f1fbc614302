#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the Swift pipeline vs the C reference for
# MAX_LAYER_3: the noise-free companion of `make bench`. Counts only the per-frame encode call
# of each side (MultiResolutionPipeline.encode vs cref_encode), so frame generation and scoring
# are excluded. Usage: scripts/bench-instructions.sh [FRAMES]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=${1:-30}
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 2; }
swift build -c release --product simulcast-bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the toolchain's debug info; symbol names are enough.
cp "$(swift build -c release --show-bin-path)/simulcast-bench" "$work/simulcast-bench"
strip --strip-debug "$work/simulcast-bench"
count() {  # config, function pattern
    valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" --collect-atstart=no \
        --toggle-collect="$2" "$work/simulcast-bench" encode --clips scene --frames "$FRAMES" --repeat 1 --only "$1" \
        >"$work/$1.log" 2>&1
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/$1.log"
}
swift=$(count max_layer_3 '*MultiResolutionPipelineC6encode*')
c=$(count c_reference_max_layer_3 'cref_encode')
python3 - "$swift" "$c" "$FRAMES" <<'PY'
import sys
swift, c, frames = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(f"max_layer_3, {frames} frames of the built-in 1280x720 scene, instructions per frame:")
print(f"  swift_pipeline  {swift / frames:,.0f}")
print(f"  c_reference     {c / frames:,.0f}")
print(f"  swift_over_c_reference  {swift / c:.5f}")
PY
