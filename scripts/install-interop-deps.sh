#!/usr/bin/env bash
# Installs what the Janus interop harness needs, only when something is missing:
#   - the Debian package `janus` (Janus WebRTC server 1.1.2 on Debian 12), plus curl for the harness
#     and python3-gi/gir1.2-gstreamer-1.0 for the GStreamer stand-in publisher;
#   - a Python virtual environment .venv-interop/ in the repository root holding aiortc and aiohttp
#     (pinned below) for Tests/Interop/janus_viewer.py.
# Quiet and quick when everything is already present. Usage: scripts/install-interop-deps.sh
set -euo pipefail
AIORTC_VERSION=1.16.0
AIOHTTP_VERSION=3.14.5
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-interop"

# python3-gi + gir1.2-gstreamer-1.0: only for the GStreamer stand-in publisher of the dev smoke
# check (scripts/gst-simulcast-sender.py runs with Debian's /usr/bin/python3).
packages=(janus curl python3-venv python3-gi gir1.2-gstreamer-1.0)
"$root/scripts/apt-install-missing.sh" "${packages[@]}"

# The venv is up to date when its stamp names exactly the pinned versions.
stamp="$venv/.interop-stamp"
want="aiortc==$AIORTC_VERSION aiohttp==$AIOHTTP_VERSION"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
echo "install-interop-deps: preparing $venv ($want)" >&2
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "aiortc==$AIORTC_VERSION" "aiohttp==$AIOHTTP_VERSION"
"$venv/bin/python" -c 'import aiortc, aiohttp, av' 
echo "$want" > "$stamp"
