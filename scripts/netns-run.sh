#!/usr/bin/env bash
# Runs a command inside the private network namespace it is started in (`unshare -n`), as the
# client host of a two-host network that nothing outside can reach:
#
#   client host (this namespace)                 peer host (a namespace of its own)
#   lo up, veth-engine 10.99.0.1/24  <-- veth -->  lo up, veth-peer 10.99.0.2/24
#
# Servers the client talks to (Janus, coturn, an aiortc peer) run on the peer host, so every
# datagram and connection between them crosses the veth pair as between two machines; nothing
# is addressed to a server at one of the client's own addresses. The peer host is held by a
# sleeping process; its PID is exported as MEDIA_ENGINE_PEER_PID, and `scripts/on-peer-host.sh
# COMMAND...` (nsenter) runs a command there. The holder is killed when COMMAND ends.
#
#   unshare -n scripts/netns-run.sh COMMAND [ARG...]
set -euo pipefail
own="$(readlink /proc/self/ns/net)"
initial="$(readlink /proc/1/ns/net 2>/dev/null || true)"
if [ "$own" = "$initial" ]; then
    echo "netns-run: not in a private network namespace; run: unshare -n $0 $*" >&2
    exit 2
fi
ip link set lo up

# The peer host: a new network namespace held by `sleep`, once unshare has made it.
unshare -n sleep infinity &
peer_pid=$!
trap 'kill -KILL "$peer_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    peer_ns="$(readlink "/proc/$peer_pid/ns/net" 2>/dev/null || true)"
    [ -n "$peer_ns" ] && [ "$peer_ns" != "$own" ] && break
    sleep 0.01
done
[ "$(readlink "/proc/$peer_pid/ns/net")" != "$own" ] || { echo "netns-run: the peer host's namespace did not appear" >&2; exit 1; }

ip link add veth-engine type veth peer name veth-peer
ip link set veth-peer netns "$peer_pid"
ip addr add 10.99.0.1/24 dev veth-engine
ip link set veth-engine up
nsenter -t "$peer_pid" -n sh -c 'ip link set lo up && ip addr add 10.99.0.2/24 dev veth-peer && ip link set veth-peer up'

export MEDIA_ENGINE_NETNS=1 MEDIA_ENGINE_PEER_PID="$peer_pid"
set +e
"$@"
status=$?
exit "$status"
