#!/usr/bin/env bash
# Instruction counts (valgrind callgrind) of the Swift pipeline vs the C reference for
# MAX_LAYER_3 on the built-in scene alone: the quick companion of `make bench`, which counts
# every configuration on both clips the same way (`simulcast-bench encode --instructions
# callgrind`: only the encode calls of frames 1..FRAMES are counted, frame generation and scoring
# are not). Usage: scripts/bench-instructions.sh [FRAMES]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=${1:-30}
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed (make bench-deps)" >&2; exit 2; }
swift build -c release --product simulcast-bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$(swift build -c release --show-bin-path)/simulcast-bench" encode --clips scene --frames 2 --repeat 1 \
    --only max_layer_3,c_reference_max_layer_3 --instructions callgrind --instruction-frames $((FRAMES + 1)) \
    --json "$work/encode.json" >/dev/null
python3 - "$work/encode.json" "$FRAMES" <<'PY'
import json, sys
report, frames = json.load(open(sys.argv[1])), int(sys.argv[2])
swift = report["configs"]["max_layer_3"]["instructionsPerFrame"]
c = report["configs"]["c_reference_max_layer_3"]["instructionsPerFrame"]
print(f"max_layer_3, frames 1-{frames} of the built-in 1280x720 scene, instructions per frame:")
print(f"  swift_pipeline  {swift:,.0f}")
print(f"  c_reference     {c:,.0f}")
print(f"  swift_over_c_reference  {swift / c:.5f}")
PY
