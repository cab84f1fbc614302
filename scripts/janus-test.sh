#!/usr/bin/env bash
# `make test`'s Janus step (issues 8 and 13) with OUR publisher: runs the viewer's offline unit tests,
# builds the release `simulcast` (real-time 720p needs it on a loaded machine), then runs
# scripts/janus-acceptance.sh --ours: three layers
# (substreams 0/1/2, 500 ms switches, temporal 0 at ~1/4 rate, zero decode errors) and the
# --max-layer 2 publisher asked for its missing substream; then scripts/janus-videoroom-acceptance.sh:
# our WebRTC publisher in a Janus VideoRoom, an aiortc subscriber through the room. Prints a summary (switch latencies,
# frames per resolution, fps by temporal layer, total time) and exits 0 only when both runs pass.
#
#   scripts/janus-test.sh [--no-build] [--budget SECONDS]    (budget for the acceptance, default 90)
#
# Every Janus and temp directory of this run lives under a private TMPDIR, which is emptied (each
# harness stopped by the PID it recorded) and removed on every exit path: pass, fail, timeout, TERM.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
SWIFT="${SWIFT:-swift}"
build=1
budget=90
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0; shift ;;
        --budget) budget=$2; shift 2 ;;
        *) echo "janus-test: unknown option $1" >&2; exit 2 ;;
    esac
done

scripts/install-interop-deps.sh
# The viewer's own measurements (switch latency, fallback, temporal rate), offline, < 1 s.
.venv-interop/bin/python -m unittest discover -s Tests/Interop -p 'test_*.py' 2>&1 | tail -n 1 >&2

private_tmp="$(mktemp -d "${TMPDIR:-/tmp}/janus-test.XXXXXX")"
acceptance_pid=""
cleanup() {
    local rc=$?
    trap - EXIT
    trap "" INT TERM   # a second signal must not cut the cleanup short
    if [ -n "$acceptance_pid" ] && kill -0 -- "-$acceptance_pid" 2>/dev/null; then
        # Its process group (setsid below): every run script cleans up after itself on TERM (stops
        # its publisher, viewer and Janus); wait until the whole group is gone, KILL after 15 s.
        # TERM to timeout(1) only: it passes the signal on to the group itself (once).
        kill -TERM "$acceptance_pid" 2>/dev/null || kill -TERM -- "-$acceptance_pid" 2>/dev/null || true
        for _ in $(seq 150); do kill -0 -- "-$acceptance_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$acceptance_pid" 2>/dev/null || true
    fi
    # Anything the runs could not clean up themselves (a KILL, a crash): stop each harness Janus by
    # the PID it recorded (the harness checks that PID still runs `janus -F DIR`), remove the rest.
    for dir in "$private_tmp"/janus-harness.*; do
        [ -d "$dir" ] && scripts/janus-harness.sh stop "$dir" >/dev/null 2>&1 || true
    done
    rm -rf "$private_tmp"
    exit $rc
}
trap cleanup EXIT
trap 'trap "" INT TERM; exit 130' INT TERM   # the first signal starts the cleanup, later ones are ignored

if [ $build -eq 1 ]; then
    echo "janus-test: swift build -c release --product simulcast" >&2
    timeout 1800 $SWIFT build -c release --product simulcast >&2
fi

start=$(date +%s.%N)
status=0
# Own process group so a timeout or our trap reaches the runs, the viewer and the harness.
# In a private network namespace with a veth pair of its own (scripts/netns-run.sh): Janus gathers
# ICE candidates on that veth, never on this machine's interfaces; HTTP and RTP use its loopback.
TMPDIR="$private_tmp" setsid timeout --kill-after=10 "$budget" \
    unshare -n scripts/netns-run.sh scripts/janus-acceptance.sh --ours .build/release/simulcast &
acceptance_pid=$!
wait "$acceptance_pid" || status=$?
acceptance_pid=""

# Issue 13: our WebRTC publisher (ICE + DTLS-SRTP, simulcast by RID) into a Janus VideoRoom, an
# aiortc subscriber through the room (three layers, then --max-layer 2, then end-to-end encrypted
# frames a keyless aiortc viewer cannot decode), same namespace set-up.
echo "janus-test: VideoRoom acceptance (our WebRTC publisher -> Janus VideoRoom -> aiortc)" >&2
TMPDIR="$private_tmp" setsid timeout --kill-after=10 180 \
    unshare -n scripts/netns-run.sh scripts/janus-videoroom-acceptance.sh .build/release/simulcast &
acceptance_pid=$!
wait "$acceptance_pid" || status=$?
acceptance_pid=""
elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")

python3 - "$elapsed" <<'PY' || true
import json, sys
def load(path):
    try:
        with open(path) as f: return json.load(f)
    except Exception as e: return {"error": f"{path}: {e}"}
three, fallback = load("out/janus-acceptance-three.json"), load("out/janus-acceptance-fallback.json")
print("janus-test summary (our publisher -> Janus streaming and VideoRoom -> aiortc):")
for name, r in (("three layers", three), ("--max-layer 2", fallback)):
    if "error" in r:
        print(f"  {name}: {r['error']}"); continue
    def one(s):
        head = f"{s['substream']}->{s['expected']}"
        if s.get("expected") == "none":
            return (f"{s['substream']} (missing): Janus moved to {'/'.join(s.get('transit_resolutions') or []) or 'nothing'}"
                    f" after {s.get('first_change_ms')} ms")
        if s.get("latency_ms") is None:
            return f"{head}: never"
        return f"{head}: {s['latency_ms']} ms" + (" (initial)" if s.get("initial") else "")
    sw = ", ".join(one(s) for s in r.get("switches", []))
    print(f"  {name}: frames {r.get('frames_by_resolution')}, decode errors {r.get('decode_errors')}, "
          f"largest gap {r.get('max_frame_gap_ms')} ms, fps by temporal {r.get('fps_by_temporal')}")
    print(f"    switches (request -> first frame at the new size): {sw}")
for name in ("three", "two"):
    r = load(f"out/janus-videoroom-{name}.json")
    if "error" in r and "frames_by_resolution" not in r:
        print(f"  VideoRoom {name}: {r['error']}"); continue
    lat = ", ".join(f"{s['substream']}: {s.get('latency_ms')} ms" for s in r.get("switches", []))
    print(f"  VideoRoom ({'three layers' if name == 'three' else '--max-layer 2'}): frames {r.get('frames_by_resolution')}, "
          f"decode errors {r.get('decode_errors')}, fps by temporal {r.get('fps_by_temporal')}, switches {lat}")
print(f"  acceptance wall time {sys.argv[1]} s")
PY
exit $status
