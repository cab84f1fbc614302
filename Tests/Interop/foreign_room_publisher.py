#!/usr/bin/env python3
"""A participant our engine did not write: aiortc publishing into a Janus VideoRoom (issue 28).

Joins room --room at --url through Janus's HTTP API as a publisher whose display is NOT the
engine's "name|id" encoding (default "Gustav | aiortc": a bar, but no engine id after it), then
publishes VP8 video (a moving test pattern, --width x --height at --fps) and Opus audio (a sine
tone of --tone Hz) in one peer connection, the way a browser would (offer with both m-lines,
Janus's answer, ICE + DTLS-SRTP).

stdout, one JSON line each:
  {"feed": <its Janus feed id>, "display": "...", "connect_ms": n}  once ICE and DTLS are up
  {"participants": [...]}     for each "participants" line read on stdin (VideoRoom
                              `listparticipants`: every participant Janus has in the room)
  {"left": true, "video_frames": n, "audio_frames": n, "room_events": [...]}  after "leave" or
                              end of stdin: what it sent and the room events it was told
                              (publishers / joining / leaving / unpublished)
On a set-up failure: {"error": "..."} and exit status 2. Every wait is bounded (--setup-timeout,
--seconds for the whole run).
"""
import argparse
import asyncio
import fractions
import json
import logging
import math
import sys
import time
from array import array

import aiohttp
import av
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from aiortc.rtcrtpsender import RTCRtpSender

from janus_viewer import Janus, SetupError


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="Janus HTTP API base, e.g. http://10.99.0.2:8088/janus")
    p.add_argument("--room", type=int, default=1234)
    p.add_argument("--display", default="Gustav | aiortc")
    p.add_argument("--tone", type=float, default=520.0, help="the microphone's sine, Hz")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--seconds", type=float, default=60.0, help="leave after this long at the latest")
    p.add_argument("--setup-timeout", type=float, default=15.0)
    return p.parse_args(argv)


class PacedTrack(MediaStreamTrack):
    """A track whose frames leave in real time, the first at once."""

    def __init__(self):
        super().__init__()
        self.start = None

    async def pace(self, seconds):
        """Waits until `seconds` after the first frame (the first call starts the clock)."""
        if self.start is None:
            self.start = time.monotonic()
            return
        wait = self.start + seconds - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)


class ToneTrack(PacedTrack):
    """20 ms frames of a sine at `hz`, 48 kHz mono."""

    kind = "audio"
    rate = 48000
    samples = 960

    def __init__(self, hz):
        super().__init__()
        self.hz = hz
        self.sent = 0

    async def recv(self):
        await self.pace(self.sent / self.rate)
        step = 2 * math.pi * self.hz / self.rate
        pcm = array("h", (int(10000 * math.sin(step * (self.sent + i))) for i in range(self.samples)))
        frame = av.AudioFrame(format="s16", layout="mono", samples=self.samples)
        frame.planes[0].update(pcm.tobytes())
        frame.pts = self.sent
        frame.sample_rate = self.rate
        frame.time_base = fractions.Fraction(1, self.rate)
        self.sent += self.samples
        return frame


class PatternTrack(PacedTrack):
    """A moving test pattern: a bright bar sweeping across a dark gradient, `fps` frames a second."""

    kind = "video"
    clock = 90000

    def __init__(self, width, height, fps):
        super().__init__()
        self.width, self.height, self.fps = width, height, fps
        self.count = 0

    async def recv(self):
        await self.pace(self.count / self.fps)
        frame = av.VideoFrame(width=self.width, height=self.height, format="yuv420p")
        luma = frame.planes[0]
        bar = (self.count * 4) % self.width
        row = bytearray((16 + (x * 160) // self.width) for x in range(luma.line_size))
        row[bar:min(bar + self.width // 8, self.width)] = b"\xeb" * len(row[bar:min(bar + self.width // 8, self.width)])
        plain, lighter = bytes(row), bytes(min(235, v + 24) for v in row)
        luma.update(b"".join(plain if (y // 16 + self.count // 8) % 2 else lighter for y in range(self.height)))
        for chroma, value in ((frame.planes[1], 110), (frame.planes[2], 150)):
            chroma.update(bytes([value]) * chroma.buffer_size)
        frame.pts = self.count * self.clock // self.fps
        frame.time_base = fractions.Fraction(1, self.clock)
        self.count += 1
        return frame


def emit(obj):
    print(json.dumps(obj), flush=True)


async def run(args):
    ends_at = time.monotonic() + args.seconds
    room_events = []
    async with aiohttp.ClientSession() as http:
        janus = Janus(http, args.url, False, "janus.plugin.videoroom")
        pc = RTCPeerConnection()
        audio, video = ToneTrack(args.tone), PatternTrack(args.width, args.height, args.fps)

        async def next_event(predicate, deadline):
            _, event = await janus.next_event(predicate, deadline - time.monotonic(),
                                              lambda at, other: note(other.get("plugindata", {}).get("data", {})))
            return event

        def note(data):
            told = {key: data[key] for key in ("publishers", "joining", "leaving", "unpublished") if key in data}
            if told:
                room_events.append(told)

        async def keep_noting():
            while True:
                _, event = await janus.events.get()
                note(event.get("plugindata", {}).get("data", {}))

        noting = None
        try:
            started = time.monotonic()
            deadline = started + args.setup_timeout
            await asyncio.wait_for(janus.open(), args.setup_timeout)
            await janus.message({"request": "join", "ptype": "publisher", "room": args.room, "display": args.display})
            joined = (await next_event(lambda e: e.get("plugindata", {}).get("data", {}).get("videoroom") == "joined",
                                       deadline))["plugindata"]["data"]
            feed = joined["id"]
            note({"publishers": joined.get("publishers", [])} if joined.get("publishers") else {})
            pc.addTrack(audio)
            transceiver = pc.addTransceiver(video, direction="sendonly")
            transceiver.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType == "video/VP8"])
            await pc.setLocalDescription(await pc.createOffer())
            await janus.message({"request": "publish", "audio": True, "video": True},
                                {"type": "offer", "sdp": pc.localDescription.sdp})
            answer = await next_event(lambda e: "jsep" in e, deadline)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["jsep"]["sdp"], type="answer"))
            while pc.connectionState != "connected":
                if pc.connectionState == "failed" or time.monotonic() > deadline:
                    raise SetupError(f"peer connection {pc.connectionState}")
                await asyncio.sleep(0.02)
        except (SetupError, asyncio.TimeoutError, aiohttp.ClientError, KeyError) as error:
            emit({"error": repr(error)})
            await pc.close()
            await janus.close()
            return 2
        emit({"feed": feed, "display": args.display, "connect_ms": int((time.monotonic() - started) * 1000)})
        noting = asyncio.create_task(keep_noting())

        loop = asyncio.get_running_loop()
        while True:
            remaining = ends_at - time.monotonic()
            if remaining <= 0:
                break
            try:
                line = await asyncio.wait_for(loop.run_in_executor(None, sys.stdin.readline), remaining)
            except asyncio.TimeoutError:
                break
            command = line.strip()
            if command == "participants":
                reply = await janus.message({"request": "listparticipants", "room": args.room})
                emit({"participants": reply.get("plugindata", {}).get("data", {}).get("participants", [])})
            elif command == "leave" or not line:
                break
        noting.cancel()
        await asyncio.gather(noting, return_exceptions=True)
        try:
            await janus.message({"request": "leave"})
        except (SetupError, aiohttp.ClientError, asyncio.TimeoutError):
            pass
        await pc.close()
        await janus.close()
        emit({"left": True, "video_frames": video.count, "audio_frames": audio.sent // ToneTrack.samples,
              "media_seconds": round(time.monotonic() - (video.start or time.monotonic()), 3),
              "room_events": room_events})
        return 0


def main(argv):
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
