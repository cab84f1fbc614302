#!/usr/bin/env bash
# Dev check of the Janus interop harness WITHOUT our Swift sender (not part of `make test`): the
# GStreamer stand-in (scripts/gst-simulcast-sender.py) publishes three SRTP VP8 layers (320x180,
# 640x360, 1280x720 from videotestsrc; key frame every 30 frames; 3 temporal layers; answers Janus's
# PLIs with key frames) into a harness Janus, and the aiortc viewer asks for substreams 0, 1, 2 and
# then temporal 0 and 2, measuring what it decodes. Runs through scripts/janus-interop.sh.
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
# Prints the viewer's JSON and exits with the viewer's status.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

seconds=14
schedule="0:0,4:1,8:2"
temporal_schedule="10:0,12:2"
layers=3
out=out/janus-gst-smoke.json
keyframe_interval=30
pli=1
sender_sizes="320x180,640x360,1280x720"
stop_layer=""
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
for element in videotestsrc vp8enc rtpvp8pay srtpenc valve udpsink; do
    gst-inspect-1.0 "$element" >/dev/null 2>&1 || { echo "janus-gst-smoke: GStreamer element $element missing" >&2; exit 1; }
done

# The stand-in sends as many layers as --sender-sizes names, to the lowest ports.
n=$(echo "$sender_sizes" | tr ',' '\n' | grep -c .)
ports_placeholder=$(printf '{port%d},' $(seq 1 "$n")); ports_placeholder=${ports_placeholder%,}
sender="/usr/bin/python3 scripts/gst-simulcast-sender.py --host {host} --key-hex {key_hex} --ports $ports_placeholder"
sender+=" --sizes $sender_sizes --seconds {sender_seconds} --temporal-layers 3 --keyframe-interval $keyframe_interval"
[ "$pli" = 1 ] && sender+=" --rtcp-port {rtcp_port}"
[ -n "$stop_layer" ] && sender+=" --stop-layer $stop_layer"

exec scripts/janus-interop.sh --sender "$sender" --layers "$layers" --seconds "$seconds" --out "$out" -- \
    --schedule "$schedule" --temporal-schedule "$temporal_schedule" ${viewer_extra[@]+"${viewer_extra[@]}"}
