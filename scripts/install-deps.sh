#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, only when some are missing, then
# what the Janus interop test needs (scripts/install-interop-deps.sh).
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail
# GStreamer is the independent receiver of the interop tests (udpsrc, srtpdec, rtpvp8depay,
# vp8dec, rtpopusdepay, opusdec); ffmpeg independently decodes the forwarded streams written to IVF.
# iproute2's `ip` builds the private network namespaces of the ICE tests (scripts/netns-run.sh);
# nftables' `nft` blocks UDP inside such a namespace for the TCP fallback tests (TCPFallbackCallTests).
# OpenSSL 3 (libssl-dev) runs DTLS-SRTP (RFC 5764) for the WebRTC transport.
# coturn is the real TURN server of TURNClientInteropTests (RFC 8656).
packages=(libvpx-dev libyuv-dev libopus-dev libsrtp2-dev libssl-dev pkg-config coturn
          gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
          ffmpeg iproute2 nftables "$@")
"$(dirname "${BASH_SOURCE[0]}")/apt-install-missing.sh" "${packages[@]}"
# The Janus interop test (issue 8): Debian's janus + curl, and .venv-interop/ with aiortc/aiohttp
# (quiet and quick when present).
"$(dirname "${BASH_SOURCE[0]}")/install-interop-deps.sh"
