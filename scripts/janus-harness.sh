#!/usr/bin/env bash
# A throw-away Janus (Debian's janus 1.1.2) with one SRTP simulcast VP8 mountpoint, for tests and demos.
#
#   unshare -n scripts/netns-run.sh scripts/janus-harness.sh start [--key BASE64] [--layers 2|3]
#                                  [--mountpoint ID] [--debug-level N] [--timeout SECONDS]
#                                  [--videoroom] [--ice-tcp] [--ipv6] [--full-trickle]
#       Writes a config directory (mktemp) holding janus.jcfg, janus.transport.http.jcfg and
#       janus.plugin.streaming.jcfg, starts `janus -F DIR -C DIR/janus.jcfg` in the background
#       (log: DIR/janus.log), waits (bounded, default 15 s) until GET /janus/info answers
#       {"janus":"server_info"...}, and prints one JSON line (also kept in DIR/harness.json):
#         {"dir":..., "pid":..., "host":"10.99.0.2", "http":"http://10.99.0.2:P/janus", "mountpoint":1,
#          "ports":[low, mid, high], "rtcp_port":..., "key":"<base64 30 bytes>", "key_hex":...,
#          "srtpsuite":80, "rtp_port_range":"A-B", "ice_address":"...", "log":".../janus.log"}
#       --key: the SRTP master key||salt (30 bytes, base64, AES_CM_128_HMAC_SHA1_80); generated if
#       absent. --layers 2 configures videoport/videoport2 only (default 3 ports, lowest layer first).
#       --videoroom: the VideoRoom plugin instead, with one room (id 1234, VP8 + Opus, up to 6
#       publishers, simulcast as the publisher's offer asks); the JSON then has "room": 1234.
#       --ice-tcp: Janus also offers ICE-TCP passive candidates (RFC 6544): `ice_tcp = true` and
#       `ice_lite = true` in janus.jcfg's nat section (Janus 1.1.2 warns "You may experience
#       problems when having ICE-TCP enabled without having ICE Lite enabled too in libnice");
#       its log then says "Lite mode, ICE-TCP candidates enabled". UDP candidates stay.
#       --ipv6: the hosts' global IPv6 addresses instead of their IPv4 ones (for a test that gave
#       veth-engine / veth-peer IPv6 addresses and took the IPv4 ones away): `ipv6 = true` in
#       janus.jcfg's media section (Janus then gathers IPv6 candidates), the HTTP transport bound
#       to the peer host's IPv6 address, and "http" as http://[ADDRESS]:P/janus.
#       --full-trickle: `full_trickle = true` in the nat section: Janus trickles its own candidates
#       (`trickle` events) instead of waiting for them before its description.
#       On any failure Janus is killed, DIR removed, the log tail printed to stderr, exit status 1.
#
#   scripts/janus-harness.sh stop DIR
#       Kills the Janus whose PID is in DIR/janus.pid (only if that PID still runs janus with DIR
#       as its config folder), waits up to 5 s (then SIGKILL) and removes DIR.
#
# Janus runs on the peer host of scripts/netns-run.sh (scripts/on-peer-host.sh: its own network
# namespace, 10.99.0.2 on veth-peer), as a server on another machine: its HTTP API, the
# mountpoint's RTP/RTCP sockets and its ICE candidates are all on 10.99.0.2 ("host" in the JSON),
# and every request and packet from a client (on 10.99.0.1, "ice_address") crosses the veth pair.
# Janus's ICE ports come from a range of their own.
#
# ICE and loopback: Janus 1.1.2 never gathers candidates on a loopback interface (it skips
# IFF_LOOPBACK interfaces). So the harness runs only inside the namespaces of scripts/netns-run.sh
# and restricts Janus's ICE to its veth-peer interface (ice_enforce_list); clients gather on the
# client host's veth-engine address (janus_viewer.py --ice-address, the "ice_address" printed).
# Nothing reaches this machine's own interfaces.
set -euo pipefail

JANUS_LIB=/usr/lib/x86_64-linux-gnu/janus
MARKER=.janus-harness

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() { echo "janus-harness: $*" >&2; exit 1; }

# Runs a shell function or command on the peer host of scripts/netns-run.sh.
on_peer_host() {
    if declare -F "$1" >/dev/null; then
        nsenter -t "$MEDIA_ENGINE_PEER_PID" -n -- bash -c "$(declare -f "$1"); $(printf '%q ' "$@")"
    else
        nsenter -t "$MEDIA_ENGINE_PEER_PID" -n -- "$@"
    fi
}

# N free UDP ports, then M free TCP ports (all distinct), outside the rtp_port_range we pick (the
# kernel's ephemeral range starts at 32768; our rtp range lies below it).
free_ports() {
    python3 - "$1" "$2" <<'PY'
import socket, sys
udp, tcp = int(sys.argv[1]), int(sys.argv[2])
held, ports = [], []
for kind, count in ((socket.SOCK_DGRAM, udp), (socket.SOCK_STREAM, tcp)):
    while count:
        s = socket.socket(socket.AF_INET, kind)
        s.bind(("", 0))
        port = s.getsockname()[1]
        held.append(s)
        if port in ports:
            continue
        ports.append(port)
        count -= 1
print(" ".join(map(str, ports)))
PY
}

mountpoint_ok() { # URL ID: does the streaming plugin know mountpoint ID?
    python3 - "$1" "$2" <<'PY2'
import json, sys, urllib.request
url, mp = sys.argv[1], int(sys.argv[2])
def post(path, body):
    req = urllib.request.Request(url + path, json.dumps(dict(body, transaction="h")).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=3) as r:
        return json.load(r)
session = post("", {"janus": "create"})["data"]["id"]
try:
    handle = post(f"/{session}", {"janus": "attach", "plugin": "janus.plugin.streaming"})["data"]["id"]
    reply = post(f"/{session}/{handle}", {"janus": "message", "body": {"request": "info", "id": mp}})
    data = reply.get("plugindata", {}).get("data", {})
    media = data.get("info", {}).get("media", [])
    ok = data.get("streaming") == "info" and any(m.get("videosimulcast") for m in media)
    if not ok:
        print("janus-harness: mountpoint check: " + json.dumps(reply), file=sys.stderr)
    sys.exit(0 if ok else 1)
finally:
    post(f"/{session}", {"janus": "destroy"})
PY2
}

janus_pid_matches() { # PID DIR: does PID run janus with DIR as its config folder?
    local pid=$1 dir=$2
    [ -r "/proc/$pid/cmdline" ] || return 1
    local cmd
    cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline")"
    [[ "$cmd" == *janus* && "$cmd" == *"-F $dir "* ]]
}

stop_dir() {
    local dir=$1
    [ -d "$dir" ] || die "stop: no directory $dir"
    [ -f "$dir/$MARKER" ] || die "stop: $dir was not made by janus-harness (no $MARKER)"
    if [ -f "$dir/janus.pid" ]; then
        local pid
        pid="$(cat "$dir/janus.pid")"
        if janus_pid_matches "$pid" "$dir"; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 50); do
                janus_pid_matches "$pid" "$dir" || break
                sleep 0.1
            done
            if janus_pid_matches "$pid" "$dir"; then
                kill -KILL "$pid" 2>/dev/null || true
                sleep 0.2
            fi
        fi
    fi
    rm -rf -- "$dir"
}

start() {
    local key="" layers=3 mountpoint=1 debug_level=3 timeout=15 ice_address plugin=streaming ice_tcp=false ipv6=false full_trickle=false
    while [ $# -gt 0 ]; do
        case "$1" in
            --key) key=$2; shift 2 ;;
            --layers) layers=$2; shift 2 ;;
            --mountpoint) mountpoint=$2; shift 2 ;;
            --videoroom) plugin=videoroom; shift ;;
            --ice-tcp) ice_tcp=true; shift ;;
            --ipv6) ipv6=true; shift ;;
            --full-trickle) full_trickle=true; shift ;;
            --debug-level) debug_level=$2; shift 2 ;;
            --timeout) timeout=$2; shift 2 ;;
            *) die "start: unknown option $1" ;;
        esac
    done
    [[ "$layers" == 2 || "$layers" == 3 ]] || die "--layers must be 2 or 3"
    command -v janus >/dev/null || die "janus is not installed (run scripts/install-interop-deps.sh)"
    [ -f "$JANUS_LIB/plugins/libjanus_streaming.so" ] || die "no $JANUS_LIB/plugins/libjanus_streaming.so"
    if [ -z "$key" ]; then
        key="$(head -c 30 /dev/urandom | base64 -w0)"
    fi
    local key_hex
    key_hex="$(printf '%s' "$key" | base64 -d 2>/dev/null | od -An -tx1 -v | tr -d ' \n')" \
        || die "--key is not base64"
    [ ${#key_hex} -eq 60 ] || die "--key must decode to 30 bytes (16-byte key + 14-byte salt), got $(( ${#key_hex} / 2 ))"

    # Only inside the namespaces of scripts/netns-run.sh: Janus on its peer host, never on this
    # machine's own interfaces.
    [ "$(readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net 2>/dev/null)" ] && [ -n "${MEDIA_ENGINE_PEER_PID:-}" ] \
        || die "run inside the namespaces of scripts/netns-run.sh: unshare -n scripts/netns-run.sh $0 start ..."
    local family=-4
    [ "$ipv6" = true ] && family="-6"
    ice_address="$(ip "$family" -o addr show dev veth-engine up scope global 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')"
    [ -n "$ice_address" ] || die "no veth-engine address on the client host: start it through scripts/netns-run.sh"
    local host
    host="$(on_peer_host ip "$family" -o addr show dev veth-peer up scope global 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')"
    [ -n "$host" ] || die "no veth-peer address on the peer host: start it through scripts/netns-run.sh"

    local dir
    dir="$(mktemp -d "${TMPDIR:-/tmp}/janus-harness.XXXXXX")"
    touch "$dir/$MARKER"
    # Until Janus answers, any failure removes what we made.
    trap 'rc=$?; if [ $rc -ne 0 ]; then [ -f "$dir/janus.log" ] && tail -n 30 "$dir/janus.log" >&2; stop_dir "$dir"; fi' EXIT
    trap 'exit 130' INT TERM

    local ports p1 p2 p3 rtcp http
    ports="$(on_peer_host free_ports 4 1)"
    read -r p1 p2 p3 rtcp http <<< "$ports"
    # 100 ports for Janus's own ICE/RTP sockets, below the ephemeral range used by free_ports.
    local base=$(( 20000 + (RANDOM % 120) * 100 ))
    local range="$base-$(( base + 99 ))"

    local plugins_disable transports_disable
    plugins_disable="$(cd "$JANUS_LIB/plugins" && ls -1 -- *.so | grep -vx "libjanus_$plugin.so" | paste -sd, -)"
    transports_disable="$(cd "$JANUS_LIB/transports" && ls -1 -- *.so | grep -vx libjanus_http.so | paste -sd, -)"

    cat > "$dir/janus.jcfg" <<EOF
general: {
	configs_folder = "$dir"
	plugins_folder = "$JANUS_LIB/plugins"
	transports_folder = "$JANUS_LIB/transports"
	events_folder = "$JANUS_LIB/events"
	loggers_folder = "$JANUS_LIB/loggers"
	debug_level = $debug_level
	debug_colors = false
	hide_dependencies = true
}
certificates: {
}
media: {
	rtp_port_range = "$range"
	ipv6 = $ipv6
	ipv6_linklocal = false
}
nat: {
	nice_debug = false
	ice_enforce_list = "veth-peer"
	ice_lite = $ice_tcp
	ice_tcp = $ice_tcp
	full_trickle = $full_trickle
}
plugins: {
	disable = "$plugins_disable"
}
transports: {
	disable = "$transports_disable"
}
loggers: {
	disable = "libjanus_jsonlog.so"
}
events: {
	broadcast = false
}
EOF

    cat > "$dir/janus.transport.http.jcfg" <<EOF
general: {
	json = "compact"
	base_path = "/janus"
	http = true
	port = $http
	ip = "$host"
	https = false
}
admin: {
	admin_http = false
	admin_https = false
}
cors: {
}
EOF

    local port3_line=""
    [ "$layers" = 3 ] && port3_line="	videoport3 = $p3"
    cat > "$dir/janus.plugin.streaming.jcfg" <<EOF
general: {
	events = false
}
simulcast-vp8: {
	type = "rtp"
	id = $mountpoint
	description = "SRTP simulcast VP8 (janus-harness)"
	audio = false
	video = true
	videocodec = "vp8"
	videopt = 96
	videortpmap = "VP8/90000"
	videosimulcast = true
	videoport = $p1
	videoport2 = $p2
$port3_line
	videortcpport = $rtcp
	videoiface = "$host"
	srtpsuite = 80
	srtpcrypto = "$key"
}
EOF

    if [ "$plugin" = videoroom ]; then
        cat > "$dir/janus.plugin.videoroom.jcfg" <<EOF
general: {
}
room-1234: {
	description = "janus-harness room"
	publishers = 6
	bitrate = 0
	fir_freq = 10
	audiocodec = "opus"
	videocodec = "vp8"
	record = false
}
EOF
    fi

    nohup "$root/scripts/on-peer-host.sh" janus -F "$dir" -C "$dir/janus.jcfg" -o > "$dir/janus.log" 2>&1 < /dev/null &
    local pid=$!
    echo "$pid" > "$dir/janus.pid"

    local url="http://$host:$http/janus"
    [ "$ipv6" = true ] && url="http://[$host]:$http/janus"
    local deadline=$(( $(date +%s) + timeout ))
    until curl -gsf --max-time 1 "$url/info" 2>/dev/null | grep -q '"janus" *: *"server_info"'; do
        janus_pid_matches "$pid" "$dir" || die "janus exited during start-up"
        [ "$(date +%s)" -lt "$deadline" ] || die "janus did not answer $url/info within ${timeout}s"
        sleep 0.2
    done
    # The mountpoint must have come up too (Janus skips a broken one with only a log line).
    if [ "$plugin" = streaming ]; then
        mountpoint_ok "$url" "$mountpoint" || die "mountpoint $mountpoint is missing (see the log above)"
    fi

    local ports_json="[$p1, $p2, $p3]"
    [ "$layers" = 2 ] && ports_json="[$p1, $p2]"
    local line
    line="{\"dir\": \"$dir\", \"pid\": $pid, \"plugin\": \"$plugin\", \"room\": 1234, \"host\": \"$host\", \"http\": \"$url\", \"mountpoint\": $mountpoint, \"ports\": $ports_json, \"rtcp_port\": $rtcp, \"key\": \"$key\", \"key_hex\": \"$key_hex\", \"srtpsuite\": 80, \"rtp_port_range\": \"$range\", \"ice_address\": \"$ice_address\", \"log\": \"$dir/janus.log\"}"
    echo "$line" > "$dir/harness.json"
    trap - EXIT INT TERM
    echo "$line"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop_dir "$2" ;;
    *) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
