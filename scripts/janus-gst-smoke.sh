#!/usr/bin/env bash
# Dev check of the Janus interop harness WITHOUT our Swift sender: a GStreamer stand-in publishes
# three SRTP VP8 layers (320x180, 640x360, 1280x720 from videotestsrc; key frames every 30 frames,
# three temporal layers in the libvpx 0-2-1-2 pattern) to a harness Janus, and the aiortc viewer asks
# for substreams 0, 1, 2 (and temporal 0 then 2) while measuring what it decodes.
#
#   scripts/janus-gst-smoke.sh [--seconds 14] [--schedule 0:0,4:1,8:2] [--temporal-schedule 10:0,12:2]
#                              [--layers 2|3] [--out out/janus-gst-smoke.json] [--keyframe-interval 30]
#                              [--no-pli] [--sender-sizes 320x180,1280x720] [--stop-layer 2:6]
#                              [viewer options: --require-switches --max-switch-ms N --max-gap-ms N ...]
#   --layers: mountpoint ports (harness); --sender-sizes: layers the stand-in sends (fewer sizes than
#   ports leave the upper ports silent, like `simulcast send --max-layer 2`); --no-pli: the stand-in
#   ignores Janus's PLIs (switches then wait for the periodic key frame); --stop-layer L:S: the
#   stand-in stops layer L after S seconds (a paused top layer).
#
# Prints the viewer's JSON (also written to --out) and exits with the viewer's status. Janus, the
# GStreamer pipeline and the temp directory are cleaned up on every exit path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds=14
schedule="0:0,4:1,8:2"
temporal_schedule="10:0,12:2"
keyframe_interval=30
pli=1
sender_sizes="320x180,640x360,1280x720"
stop_layer=""
layers=3
out=out/janus-gst-smoke.json
viewer_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        --schedule) schedule=$2; shift 2 ;;
        --temporal-schedule) temporal_schedule=$2; shift 2 ;;
        --layers) layers=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --keyframe-interval) keyframe_interval=$2; shift 2 ;;
        --no-pli) pli=0; shift ;;
        --sender-sizes) sender_sizes=$2; shift 2 ;;
        --stop-layer) stop_layer=$2; shift 2 ;;
        *) viewer_extra+=("$1"); shift ;;
    esac
done

scripts/install-interop-deps.sh
command -v gst-launch-1.0 >/dev/null || { echo "janus-gst-smoke: gst-launch-1.0 missing" >&2; exit 1; }

dir=""
gst_pid=""
cleanup() {
    local rc=$?
    if [ -n "$gst_pid" ] && kill -0 "$gst_pid" 2>/dev/null; then
        kill -TERM "$gst_pid" 2>/dev/null || true
        for _ in $(seq 30); do kill -0 "$gst_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$gst_pid" 2>/dev/null || true
    fi
    if [ -n "$dir" ]; then
        if [ $rc -ne 0 ] && [ -f "$dir/janus.log" ]; then
            echo "janus-gst-smoke: last lines of the Janus log:" >&2
            tail -n 20 "$dir/janus.log" >&2
        fi
        scripts/janus-harness.sh stop "$dir" || true
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

info="$(scripts/janus-harness.sh start --layers "$layers" --debug-level 4)"
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(" ".join(map(str,v)) if isinstance(v,list) else v)' "$info" "$1"; }
dir="$(field dir)"
url="$(field http)"
mountpoint="$(field mountpoint)"
key_hex="$(field key_hex)"
ice_address="$(field ice_address)"
read -r -a ports <<< "$(field ports)"
echo "janus-gst-smoke: Janus at $url (dir $dir), layers on ports ${ports[*]}" >&2

sender_args=(--key-hex "$key_hex" --ports "$(IFS=,; echo "${ports[*]}")" --seconds $(( ${seconds%.*} + 40 ))
             --temporal-layers 3 --keyframe-interval "$keyframe_interval")
[ "$pli" = 1 ] && sender_args+=(--rtcp-port "$(field rtcp_port)")
# --sender-sizes with fewer sizes than mountpoint ports leaves the upper ports silent.
n_sizes=$(echo "$sender_sizes" | tr ',' '\n' | grep -c .)
sender_ports=("${ports[@]:0:$n_sizes}")
sender_args[3]="$(IFS=,; echo "${sender_ports[*]}")"
sender_args+=(--sizes "$sender_sizes")
[ -n "$stop_layer" ] && sender_args+=(--stop-layer "$stop_layer")
/usr/bin/python3 scripts/gst-simulcast-sender.py "${sender_args[@]}" > "$dir/sender.log" 2>&1 &
gst_pid=$!
sleep 1
kill -0 "$gst_pid" 2>/dev/null || { echo "janus-gst-smoke: GStreamer stand-in failed:" >&2; cat "$dir/sender.log" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
status=0
timeout $(( ${seconds%.*} + 45 )) .venv-interop/bin/python Tests/Interop/janus_viewer.py \
    --url "$url" --mountpoint "$mountpoint" --seconds "$seconds" --ice-address "$ice_address" \
    --schedule "$schedule" --temporal-schedule "$temporal_schedule" \
    ${viewer_extra[@]+"${viewer_extra[@]}"} > "$out" || status=$?
cat "$out"
kill -TERM "$gst_pid" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "$gst_pid" 2>/dev/null || break; sleep 0.1; done
echo "janus-gst-smoke: stand-in: $(tail -n 1 "$dir/sender.log")" >&2
exit $status
