#!/usr/bin/env bash
# One bounded publisher -> Janus -> aiortc viewer run: starts a harness Janus
# (scripts/janus-harness.sh), starts the publisher command, runs Tests/Interop/janus_viewer.py
# against the mountpoint, prints the viewer's JSON (also written to --out) and exits with the
# viewer's status (0 pass, 1 a check failed, 2 no session). The publisher, Janus and the temp
# directory are cleaned up on every exit path (the publisher runs in its own process group, which
# is signalled by its id: TERM, then KILL after 3 s).
#
#   scripts/janus-interop.sh --sender 'COMMAND' [--layers 2|3] [--seconds 14] [--out FILE]
#                            [--sender-warmup 0.5] [--keep-logs DIR] [--] [viewer options ...]
#
# COMMAND is run by bash after these substitutions: {host} (Janus's address on the peer host, 10.99.0.2), {ports} ("P1,P2,P3",
# lowest layer first), {port1} {port2} {port3}, {rtcp_port} (the mountpoint's videortcpport; RTCP
# to it is plain, Janus only decrypts RTP), {key} (base64 30-byte key||salt), {key_hex},
# {sender_seconds} (how long the publisher must keep sending: --seconds + 30). Example, for the
# Swift publisher:
#   scripts/janus-interop.sh --sender '.build/release/simulcast send --to {host}:{ports} --key {key}
#       --rtcp-to {host}:{rtcp_port} --rtcp-plain --remb ignore --seconds {sender_seconds}' -- \
#       --schedule 0:0,4:1,8:2 --require-switches --max-switch-ms 500
# Viewer options (see janus_viewer.py --help) follow; --url, --mountpoint, --seconds and
# --ice-address are filled in here.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

sender=""
layers=3
seconds=14
out=out/janus-interop.json
warmup=0.5
keep_logs=""
viewer_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --sender) sender=$2; shift 2 ;;
        --layers) layers=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --sender-warmup) warmup=$2; shift 2 ;;
        --keep-logs) keep_logs=$2; shift 2 ;;
        --) shift; viewer_args+=("$@"); break ;;
        *) viewer_args+=("$1"); shift ;;
    esac
done
[ -n "$sender" ] || { echo "janus-interop: --sender 'COMMAND' is required" >&2; exit 2; }

scripts/install-interop-deps.sh

dir=""
sender_pid=""
viewer_pid=""
cleanup() {
    local rc=$?
    trap - EXIT
    trap "" INT TERM   # a second signal must not cut the cleanup short
    if [ -n "$viewer_pid" ]; then
        kill -TERM "$viewer_pid" 2>/dev/null || true   # timeout(1) passes it on to the viewer
        wait "$viewer_pid" 2>/dev/null || true
    fi
    if [ -n "$sender_pid" ] && kill -0 "$sender_pid" 2>/dev/null; then
        kill -TERM -- "-$sender_pid" 2>/dev/null || kill -TERM "$sender_pid" 2>/dev/null || true
        for _ in $(seq 30); do kill -0 "$sender_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$sender_pid" 2>/dev/null || true
    fi
    if [ -n "$dir" ]; then
        if [ -n "$keep_logs" ]; then
            mkdir -p "$keep_logs"
            cp "$dir"/*.log "$dir"/*.jcfg "$keep_logs"/ 2>/dev/null || true
        fi
        if [ $rc -ne 0 ]; then
            echo "janus-interop: last lines of the publisher log:" >&2
            tail -n 10 "$dir/sender.log" >&2 2>/dev/null || true
            echo "janus-interop: last lines of the Janus log:" >&2
            tail -n 20 "$dir/janus.log" >&2 2>/dev/null || true
        fi
        scripts/janus-harness.sh stop "$dir" || true
    fi
    exit $rc
}
trap cleanup EXIT
trap 'trap "" INT TERM; exit 130' INT TERM   # the first signal starts the cleanup, later ones are ignored

info="$(scripts/janus-harness.sh start --layers "$layers" --debug-level 4)"
field() {
    python3 -c 'import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$info" "$1"
}
dir="$(field dir)"
url="$(field http)"
ports="$(field ports)"
IFS=, read -r port1 port2 port3 <<< "$ports"
echo "janus-interop: Janus $url (dir $dir), RTP ports $ports, RTCP $(field rtcp_port)" >&2

cmd=$sender
cmd=${cmd//\{host\}/$(field host)}
cmd=${cmd//\{ports\}/$ports}
cmd=${cmd//\{port1\}/$port1}
cmd=${cmd//\{port2\}/$port2}
cmd=${cmd//\{port3\}/${port3:-}}
cmd=${cmd//\{rtcp_port\}/$(field rtcp_port)}
cmd=${cmd//\{key\}/$(field key)}
cmd=${cmd//\{key_hex\}/$(field key_hex)}
cmd=${cmd//\{sender_seconds\}/$(( ${seconds%.*} + 30 ))}
echo "janus-interop: publisher: $cmd" >&2
setsid bash -c "exec $cmd" > "$dir/sender.log" 2>&1 < /dev/null &
sender_pid=$!
sleep "$warmup"
kill -0 "$sender_pid" 2>/dev/null || { echo "janus-interop: the publisher exited early" >&2; exit 2; }

mkdir -p "$(dirname "$out")"
status=0
# In the background + wait, so that a TERM/INT reaches our trap at once rather than after the viewer.
timeout $(( ${seconds%.*} + 45 )) .venv-interop/bin/python Tests/Interop/janus_viewer.py \
    --url "$url" --mountpoint "$(field mountpoint)" --seconds "$seconds" --ice-address "$(field ice_address)" \
    ${viewer_args[@]+"${viewer_args[@]}"} > "$out" &
viewer_pid=$!
wait "$viewer_pid" || status=$?
viewer_pid=""
cat "$out"
# Let the publisher print its own summary (if it has one) before it is stopped.
kill -TERM -- "-$sender_pid" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "$sender_pid" 2>/dev/null || break; sleep 0.1; done
echo "janus-interop: publisher said: $(tail -n 1 "$dir/sender.log")" >&2
exit $status
