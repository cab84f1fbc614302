"""Answers a session description with aiortc (a WebRTC stack this project did not write).

Reads an SDP offer on stdin, prints aiortc's answer on stdout. No ICE servers (nothing leaves the
machine); the Swift test runs it inside `unshare -n`, so the only interface is a loopback that is
down and no candidate is gathered on this machine's real addresses.
"""
import asyncio
import sys

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription


async def answer(offer_sdp: str) -> str:
    connection = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    try:
        await connection.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        await connection.setLocalDescription(await connection.createAnswer())
        return connection.localDescription.sdp
    finally:
        await connection.close()


if __name__ == "__main__":
    sys.stdout.write(asyncio.run(answer(sys.stdin.read())))
