#!/usr/bin/env bash
# The issue-8 acceptance run (about 30 s): two bounded publisher -> Janus -> aiortc viewer runs
# through scripts/janus-interop.sh, each checked by scripts/check-janus-json.py.
#   1. three layers, ~12 s: the viewer asks for substreams 0, 1, 2 (at 0, 3, 6 s) and temporal 0 then 2
#      (at 8, 10 s): frames at 320x180, 640x360 and 1280x720, every switch within 500 ms, zero
#      decode errors, temporal 0 at about a quarter of the frame rate of temporal 2.
#   2. --max-layer 2 publisher (mountpoint still has three ports, videoport3 silent), ~9 s: the
#      viewer asks for 0, then 2 (does not exist), then 1, then 0; frames must keep coming (no gap
#      over 1.5 s), zero decode errors, switches to existing layers complete.
#
#   scripts/janus-acceptance.sh --sender 'CMD' --sender-max-layer-2 'CMD2'
#   scripts/janus-acceptance.sh --stand-in            # the GStreamer stand-in as publisher
#   scripts/janus-acceptance.sh --ours [BINARY]       # our `simulcast send` (default
#                                                     # .build/release/simulcast; build it first)
#
# Our publisher runs with --rtcp-to {rtcp_port} --rtcp-plain (SR to videortcpport, plain, from the
# socket that receives Janus's PLI/REMB), PLI on any layer -> key frame on every layer (the default
# --key-frames every) and --remb ignore: the streaming plugin relays the LOWEST viewer's REMB, which
# follows the substream that viewer is on (150-270 kbps measured while it watched 320x180), so
# honouring it pauses the very layers a viewer would switch up to (Tests/Interop/README.md).
#
# CMD/CMD2 take the placeholders of scripts/janus-interop.sh ({host}, {ports}, {port1}.., {rtcp_port},
# {key}, {key_hex}, {sender_seconds}). Results: out/janus-acceptance-{three,fallback}.json.
# Exit status 0 when both runs pass. Every run is bounded and cleans up after itself.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

sender=""
sender2=""
max2_resolutions="320x180,1280x720,none"
max_switch_ms=500
while [ $# -gt 0 ]; do
    case "$1" in
        --sender) sender=$2; shift 2 ;;
        --sender-max-layer-2) sender2=$2; shift 2 ;;
        --max-layer-2-resolutions) max2_resolutions=$2; shift 2 ;;
        --max-switch-ms) max_switch_ms=$2; shift 2 ;;
        --ours)
            bin=".build/release/simulcast"
            if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then bin=$2; shift; fi
            [ -x "$bin" ] || { echo "janus-acceptance: $bin not built (swift build -c release --product simulcast)" >&2; exit 2; }
            common="--key {key} --rtcp-to {host}:{rtcp_port} --rtcp-plain --rtcp-interval 500 --remb ignore --seconds {sender_seconds}"
            sender="$bin send --to {host}:{ports} $common"
            sender2="$bin send --to {host}:{port1},{port2} --max-layer 2 $common"
            shift ;;
        --stand-in)
            sender="/usr/bin/python3 scripts/gst-simulcast-sender.py --host {host} --key-hex {key_hex} --ports {ports} --rtcp-port {rtcp_port} --seconds {sender_seconds}"
            sender2="/usr/bin/python3 scripts/gst-simulcast-sender.py --host {host} --key-hex {key_hex} --ports {port1},{port2} --sizes 320x180,1280x720 --rtcp-port {rtcp_port} --seconds {sender_seconds}"
            shift ;;
        *) echo "janus-acceptance: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "$sender" ] && [ -n "$sender2" ] || { echo "janus-acceptance: give --sender and --sender-max-layer-2, --ours or --stand-in" >&2; exit 2; }

status=0
rm -rf out/janus-acceptance-three-logs out/janus-acceptance-fallback-logs
rm -f out/janus-acceptance-three.json out/janus-acceptance-fallback.json
echo "janus-acceptance: 1/2 three layers" >&2
scripts/janus-interop.sh --sender "$sender" --seconds 12 --out out/janus-acceptance-three.json \
    --keep-logs out/janus-acceptance-three-logs -- \
    --schedule 0:0,3:1,6:2 --temporal-schedule 8:0,10:2 > /dev/null || true
python3 scripts/check-janus-json.py three-layers out/janus-acceptance-three.json --max-switch-ms "$max_switch_ms" || status=1

echo "janus-acceptance: 2/2 --max-layer 2 publisher, a missing substream requested" >&2
scripts/janus-interop.sh --sender "$sender2" --seconds 9 --out out/janus-acceptance-fallback.json \
    --keep-logs out/janus-acceptance-fallback-logs -- \
    --schedule 0:0,2:2,5:1,7:0 --resolutions "$max2_resolutions" --fallback-ms 500 > /dev/null || true
python3 scripts/check-janus-json.py fallback out/janus-acceptance-fallback.json --max-gap-ms 1500 || status=1
exit $status
