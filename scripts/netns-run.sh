#!/usr/bin/env bash
# Runs a command inside the private network namespace it is started in (`unshare -n`), after
# giving that namespace a loopback that is up and a veth pair with addresses of its own
# (veth-engine 10.99.0.1/24, veth-peer 10.99.0.2/24): programs that refuse loopback for ICE
# (Janus, aiortc) get interfaces that are not this machine's, and nothing leaves the namespace.
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
ip link add veth-engine type veth peer name veth-peer
ip addr add 10.99.0.1/24 dev veth-engine
ip addr add 10.99.0.2/24 dev veth-peer
ip link set veth-engine up
ip link set veth-peer up
export MEDIA_ENGINE_NETNS=1
exec "$@"
