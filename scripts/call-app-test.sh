#!/usr/bin/env bash
# Builds Examples/CallApp (a client package that imports only the MediaEngine product), runs it
# and checks what it printed: the layers each camera publishes, the viewer on the layer its
# 640x360 viewport asks for, the in-band setWebcamQuality(.low) and setQuality(.low) moves, stats,
# a clean shutdown. Also keeps the example at most 60 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
app=Examples/CallApp
lines=$(wc -l < "$app/Sources/CallApp/CallApp.swift")
[ "$lines" -le 60 ] || { echo "call-app-test: CallApp.swift has $lines lines (at most 60)" >&2; exit 1; }
# SwiftPM keeps compiling a path dependency's deleted files in an old build directory ("missing
# inputs"): when the incremental build fails, build once more from scratch.
if ! "$SWIFT" build --package-path "$app" 2>&1 | tail -n 1; then
    echo "call-app-test: incremental build failed; rebuilding $app from scratch" >&2
    rm -rf "$app/.build"
    "$SWIFT" build --package-path "$app" 2>&1 | tail -n 1
fi
out=$(mktemp)
timeout 120 "$app/.build/debug/CallApp" | tee "$out"
expect() {
    grep -qF -- "$1" "$out" || { echo "call-app-test: missing '$1'" >&2; exit 1; }
}
expect 'published two: ["320x180", "1280x720"]'
expect 'published three: ["320x180", "640x360", "1280x720"]'
# The sizes lines come in order: after 3 s, after the cap, after setQuality.
mapfile -t sizes < <(grep '^sizes ' "$out")
[ "${#sizes[@]}" -eq 3 ] || { echo "call-app-test: expected 3 sizes lines, got ${#sizes[@]}" >&2; exit 1; }
[ "${sizes[0]}" = "sizes three=640x360 two=1280x720" ] || { echo "call-app-test: viewport layers: ${sizes[0]}" >&2; exit 1; }
[ "${sizes[1]}" = "sizes three=320x180 two=1280x720" ] || { echo "call-app-test: after the cap: ${sizes[1]}" >&2; exit 1; }
[ "${sizes[2]}" = "sizes three=320x180 two=320x180" ] || { echo "call-app-test: after setQuality: ${sizes[2]}" >&2; exit 1; }
grep -qE 'layer switched: three S1T[0-2] → S0T[0-2] \(publisher' "$out" || { echo "call-app-test: no publisher-driven switch of three" >&2; exit 1; }
grep -qE 'layer switched: two S1T[0-2] → S0T[0-2] \(client' "$out" || { echo "call-app-test: no client switch of two" >&2; exit 1; }
expect 'stats three: layer 0'
expect 'stats two: layer 0'
expect 'event connection disconnected'
expect 'closed'
echo "call-app-test: passed ($lines lines)"
