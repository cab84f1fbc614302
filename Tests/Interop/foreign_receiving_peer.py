"""A WebRTC peer this project did not write (aiortc), answering our offer and receiving.

stdin, one JSON line: {"sdp": "<offer>", "seconds": S}. stdout: one JSON line {"sdp": "<answer>"},
then, S seconds after the answer, one JSON line with what arrived:
{"ice": state, "connection": state, "video_frames": n, "video_size": [w, h] | null,
 "audio_frames": n, "audio_rate": hz | null, "errors": [...]}.
No ICE servers: nothing leaves the network namespace the test runs it in.
"""
import asyncio
import json
import sys

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription


async def main() -> None:
    request = json.loads(sys.stdin.readline())
    connection = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    result = {"video_frames": 0, "video_size": None, "audio_frames": 0, "audio_rate": None, "errors": []}

    async def consume(track):
        try:
            while True:
                frame = await track.recv()
                if track.kind == "video":
                    result["video_frames"] += 1
                    result["video_size"] = [frame.width, frame.height]
                else:
                    result["audio_frames"] += 1
                    result["audio_rate"] = frame.sample_rate
        except Exception as error:  # MediaStreamError when the track ends
            if type(error).__name__ != "MediaStreamError":
                result["errors"].append(repr(error))

    tasks = []
    connection.on("track", lambda track: tasks.append(asyncio.ensure_future(consume(track))))
    await connection.setRemoteDescription(RTCSessionDescription(sdp=request["sdp"], type="offer"))
    await connection.setLocalDescription(await connection.createAnswer())
    print(json.dumps({"sdp": connection.localDescription.sdp}), flush=True)
    await asyncio.sleep(float(request.get("seconds", 5)))
    result["ice"] = connection.iceConnectionState
    result["connection"] = connection.connectionState
    await connection.close()
    for task in tasks:
        task.cancel()
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
