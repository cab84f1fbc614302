#!/usr/bin/env bash
# Runs COMMAND on the peer host of scripts/netns-run.sh (the namespace at the far end of the
# veth pair, 10.99.0.2): `nsenter` enters only its network namespace and then becomes COMMAND,
# so COMMAND's PID is this script's.
#
#   scripts/on-peer-host.sh COMMAND [ARG...]      (inside `unshare -n scripts/netns-run.sh ...`)
set -euo pipefail
[ -n "${MEDIA_ENGINE_PEER_PID:-}" ] || { echo "on-peer-host: no peer host; run inside: unshare -n scripts/netns-run.sh ..." >&2; exit 2; }
exec nsenter -t "$MEDIA_ENGINE_PEER_PID" -n -- "$@"
