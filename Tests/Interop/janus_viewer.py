#!/usr/bin/env python3
"""A WebRTC viewer for a Janus streaming mountpoint or VideoRoom publisher (simulcast VP8), for interop tests.

Runs in the repository's .venv-interop (scripts/install-interop-deps.sh): aiohttp speaks Janus's
HTTP API (create a session, attach janus.plugin.streaming, `watch`, answer the offer, `start`,
long-poll for events, keep-alive), aiortc receives the video over ICE + DTLS-SRTP on the loopback
interface and decodes it. After the first decoded frame the viewer sends `configure` requests on a
schedule (`--schedule` for `substream`, `--temporal-schedule` for `temporal`, both "SECONDS:VALUE,...",
seconds counted from the first decoded frame) and, after `--seconds`, prints one JSON object:
frames per resolution, every resolution change, for each substream request the time until the first
frame at the new resolution, frame rate per schedule period (so per temporal setting), decode
errors, the largest gap between frames and the run's duration. A frame assembled without its last
packet is not decoded (libwebrtc's rule; see tap_frame_completeness) and fails the run unless it
comes just before a new resolution, where Janus's streaming plugin cuts one at a switch.

With --keyless (a publisher that encrypts its frames end to end, RFC 9605, and a viewer holding no
key) the checks turn round: set-up waits for video packets instead of a decoded frame. libvpx, like
any VP8 decoder, turns ciphertext behind a clear payload header into pictures of noise rather than
errors, so "cannot decode" is judged on the pictures: every assembled frame handed to the viewer's
decoder is also given to a referee holding the room key (--check-key, sframe_check.py). The run
passes when at least 100 video packets arrived, nearly every frame opens under the key (what Janus
relayed was ciphertext whose tag only the key verifies), the opened plaintext decodes, and no
picture the keyless decoder drew resembles the plaintext's picture of the same frame (luma PSNR
below 20 dB).

Exit status: 0 when the checks pass, 1 when a check fails (no frames, decode errors, and the
optional --require-switches / --max-switch-ms / --max-gap-ms / --min-frames-per-resolution),
2 when the session could not be set up. Every wait is bounded: set-up by --setup-timeout, the
media phase by --seconds, teardown by a few seconds.

Example:
  .venv-interop/bin/python Tests/Interop/janus_viewer.py --url http://127.0.0.1:PORT/janus \\
      --mountpoint 1 --seconds 12 --schedule 0:0,4:1,8:2 --require-switches
"""
import argparse
import asyncio
import base64
import json
import logging
import random
import string
import sys
import time

import aiohttp
import aioice.ice
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

import sframe_check


def parse_schedule(text, what):
    entries = []
    if not text:
        return entries
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            at, value = item.split(":")
            entries.append((float(at), int(value)))
        except ValueError:
            raise SystemExit(f"janus_viewer: bad {what} entry {item!r} (want SECONDS:VALUE)")
    return sorted(entries)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="Janus HTTP API base, e.g. http://127.0.0.1:8088/janus")
    p.add_argument("--mountpoint", type=int, default=1)
    p.add_argument("--videoroom", type=int, default=None,
                   help="subscribe in this VideoRoom room (to --feed) instead of watching a mountpoint")
    p.add_argument("--feed", type=int, default=None, help="the VideoRoom publisher id to subscribe to")
    p.add_argument("--seconds", type=float, default=12.0, help="media phase length after the first frame")
    p.add_argument("--setup-timeout", type=float, default=15.0, help="bound on session set-up until the first frame")
    p.add_argument("--schedule", default="0:0", help='substream requests, e.g. "0:0,4:1,8:2"')
    p.add_argument("--temporal-schedule", default="", help='temporal requests, e.g. "2:0,5:2"')
    p.add_argument("--resolutions", default="320x180,640x360,1280x720",
                   help="expected resolution of substream 0,1,2 (for switch latency)")
    p.add_argument("--fallback-ms", type=float, default=None,
                   help="ask Janus (configure 'fallback') to drop to a lower substream after this long "
                        "without packets on the current one (Janus's default is about 1 s here)")
    p.add_argument("--settle", type=float, default=0.5,
                   help="seconds after a request ignored when measuring a period's frame rate")
    p.add_argument("--require-switches", action="store_true",
                   help="fail when a requested substream's resolution never shows up")
    p.add_argument("--max-switch-ms", type=float, default=None, help="fail when a switch takes longer")
    p.add_argument("--max-gap-ms", type=float, default=None, help="fail when frames stop for longer")
    p.add_argument("--min-frames-per-resolution", type=int, default=0,
                   help="fail when a requested substream's resolution got fewer frames")
    p.add_argument("--ice-address", default=None,
                   help="gather ICE candidates on this local address only (the harness's ice_address); "
                        "default: every address aioice finds")
    p.add_argument("--keyless", action="store_true",
                   help="the publisher encrypts end to end: expect frames whose pictures are not the picture")
    p.add_argument("--check-key", default=None,
                   help="with --keyless: the room's SFrame key (base64), used only by the referee that "
                        "proves the forwarded frames are ciphertext, never by the viewer's decoder")
    p.add_argument("--verbose", action="store_true", help="log Janus events to stderr")
    return p.parse_args(argv)




class DecodeErrors(logging.Handler):
    """Counts aiortc's 'failed to decode' warnings (its decoder thread swallows the exceptions)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0
        self.samples = []
        self.times = []  # monotonic time of each

    def emit(self, record):
        message = record.getMessage()
        if "failed to decode" in message or "decode" in message.lower() and record.levelno >= logging.ERROR:
            self.count += 1
            self.times.append(time.monotonic())
            if len(self.samples) < 5:
                self.samples.append(message)


class SetupError(Exception):
    pass


def transaction():
    return "".join(random.choices(string.ascii_letters + string.digits, k=12))


class Janus:
    """The few Janus HTTP API calls a streaming viewer needs; events arrive through a long poll."""

    def __init__(self, http, url, verbose, plugin="janus.plugin.streaming"):
        self.plugin = plugin
        self.http = http
        self.url = url.rstrip("/")
        self.verbose = verbose
        self.session = None
        self.handle = None
        self.events = asyncio.Queue()
        self.tasks = []

    async def post(self, path, body, timeout=5.0):
        body = dict(body, transaction=transaction())
        async with self.http.post(self.url + path, json=body, timeout=aiohttp.ClientTimeout(total=timeout)) as r:
            reply = await r.json(content_type=None)
        if reply.get("janus") == "error":
            raise SetupError(f"janus error for {body.get('janus')}: {reply.get('error')}")
        return reply

    async def open(self):
        self.session = (await self.post("", {"janus": "create"}))["data"]["id"]
        self.handle = (await self.post(f"/{self.session}", {"janus": "attach", "plugin": self.plugin}))["data"]["id"]
        self.tasks = [asyncio.create_task(self.poll()), asyncio.create_task(self.keepalive())]

    async def message(self, body, jsep=None):
        request = {"janus": "message", "body": body}
        if jsep is not None:
            request["jsep"] = jsep
        return await self.post(f"/{self.session}/{self.handle}", request)

    async def next_event(self, predicate, timeout, others):
        """(monotonic time, event) of the next event `predicate` takes, within `timeout` seconds;
        every other event goes to `others(at, event)`; a plugin error raises SetupError."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SetupError("timed out waiting for a Janus event")
            at, event = await asyncio.wait_for(self.events.get(), remaining)
            data = event.get("plugindata", {}).get("data", {})
            if data.get("error"):
                raise SetupError(f"{self.plugin} error: {data.get('error')} ({data.get('error_code')})")
            if predicate(event):
                return at, event
            others(at, event)

    async def poll(self):
        while True:
            try:
                async with self.http.get(f"{self.url}/{self.session}?maxev=10&rid={int(time.time() * 1000)}",
                                         timeout=aiohttp.ClientTimeout(total=40)) as r:
                    reply = await r.json(content_type=None)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a hiccup: try again shortly, the run stays bounded by its callers
                if self.verbose:
                    print(f"janus_viewer: long poll: {e!r}", file=sys.stderr)
                await asyncio.sleep(0.2)
                continue
            for event in reply if isinstance(reply, list) else [reply]:
                if event.get("janus") == "keepalive":
                    continue
                if self.verbose:
                    print("janus_viewer: event " + json.dumps(event), file=sys.stderr)
                await self.events.put((time.monotonic(), event))

    async def keepalive(self):
        while True:
            await asyncio.sleep(20)
            try:
                await self.post(f"/{self.session}", {"janus": "keepalive"})
            except Exception:
                pass

    async def close(self):
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.session is not None:
            try:
                if self.handle is not None:
                    await self.post(f"/{self.session}/{self.handle}", {"janus": "detach"}, timeout=2)
                await self.post(f"/{self.session}", {"janus": "destroy"}, timeout=2)
            except Exception:
                pass


async def run(args):
    substreams = parse_schedule(args.schedule, "--schedule")
    temporals = parse_schedule(args.temporal_schedule, "--temporal-schedule")
    expected = [r.strip() for r in args.resolutions.split(",") if r.strip()]
    if args.ice_address:
        # aioice has no setting for this; its module-level address lookup is looked up per gathering.
        aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: [args.ice_address]

    decode_errors = DecodeErrors()
    # aiortc reports a frame libvpx refused as a warning of its decoder thread: let warnings
    # through to the counter (the root logger stops at errors) but not on to stderr.
    aiortc_log = logging.getLogger("aiortc")
    aiortc_log.setLevel(logging.WARNING)
    aiortc_log.propagate = False
    aiortc_log.addHandler(decode_errors)
    encoded_frames = tap_vp8_decoder() if args.keyless else None
    incomplete_frames = tap_frame_completeness()

    frames = []            # (monotonic time, "WxH")
    first_frame = asyncio.Event()
    janus_events = []      # (monotonic time, plugin data) for substream/temporal/status events
    requests = []          # (monotonic time, "substream"|"temporal", value)
    started = time.monotonic()
    result = {"ok": False}

    async with aiohttp.ClientSession() as http:
        plugin = "janus.plugin.videoroom" if args.videoroom is not None else "janus.plugin.streaming"
        janus = Janus(http, args.url, args.verbose, plugin)
        video_mid = []  # VideoRoom: the subscriber-side mid of the video stream, from "attached"

        def configure(kind, value):
            """A substream/temporal request: per stream (mid) in a VideoRoom, per session otherwise."""
            if args.videoroom is not None and video_mid:
                return {"request": "configure", "streams": [{"mid": video_mid[0], kind: value}]}
            return {"request": "configure", kind: value}
        pc = RTCPeerConnection()
        consumers = []

        @pc.on("track")
        def on_track(track):
            if track.kind != "video":
                return

            async def consume():
                while True:
                    try:
                        frame = await track.recv()
                    except MediaStreamError:
                        return
                    frames.append((time.monotonic(), f"{frame.width}x{frame.height}"))
                    first_frame.set()

            consumers.append(asyncio.create_task(consume()))

        async def next_event(predicate, timeout):
            return await janus.next_event(predicate, timeout, collect)

        def collect(at, event):
            data = event.get("plugindata", {}).get("data", {})
            res = data.get("result")
            if isinstance(res, dict):
                janus_events.append((at, res))
            elif data.get("error"):
                janus_events.append((at, {"error": data["error"], "error_code": data.get("error_code")}))
            elif event.get("janus") in ("webrtcup", "media", "hangup", "slowlink"):
                janus_events.append((at, {"janus": event["janus"]}))

        async def drain_events():
            while True:
                at, event = await janus.events.get()
                collect(at, event)

        async def inbound_video():
            """aiortc's inbound-rtp stats of the video streams: what arrived and what it counts lost."""
            stats = await pc.getStats()
            return [{"ssrc": r.ssrc, "packets_received": r.packetsReceived, "packets_lost": r.packetsLost}
                    for r in stats.values() if r.type == "inbound-rtp" and getattr(r, "kind", "") == "video"]

        async def video_packets_received():
            return sum(stream["packets_received"] for stream in await inbound_video())

        async def first_packets():
            while await video_packets_received() == 0:
                await asyncio.sleep(0.05)

        drainer = None
        packets = 0
        inbound = []
        try:
            setup_deadline = started + args.setup_timeout
            try:
                await asyncio.wait_for(janus.open(), args.setup_timeout)
                if args.videoroom is not None:
                    await janus.message({"request": "join", "ptype": "subscriber", "room": args.videoroom,
                                         "streams": [{"feed": args.feed}]})
                else:
                    await janus.message({"request": "watch", "id": args.mountpoint})
                _, offer_event = await next_event(lambda e: "jsep" in e, setup_deadline - time.monotonic())
                offer = offer_event["jsep"]
                for stream in offer_event.get("plugindata", {}).get("data", {}).get("streams", []) or []:
                    if stream.get("type") == "video" and "mid" in stream:
                        video_mid.append(stream["mid"])
                await pc.setRemoteDescription(RTCSessionDescription(sdp=offer["sdp"], type=offer["type"]))
                await pc.setLocalDescription(await pc.createAnswer())
                # Requests at second 0 go out before `start`, so the session starts on the requested
                # layers (Janus's default target is the top substream); they are listed as "initial".
                for kind, value in [("substream", v) for at, v in substreams if at <= 0] + \
                                   [("temporal", v) for at, v in temporals if at <= 0]:
                    requests.append((time.monotonic(), kind, value))
                    await janus.message(configure(kind, value))
                if args.fallback_ms is not None:
                    await janus.message({"request": "configure", "fallback": int(args.fallback_ms * 1000)})
                await janus.message({"request": "start"},
                                    {"type": pc.localDescription.type, "sdp": pc.localDescription.sdp})
                drainer = asyncio.create_task(drain_events())
                if args.keyless:
                    await asyncio.wait_for(first_packets(), max(0.1, setup_deadline - time.monotonic()))
                else:
                    await asyncio.wait_for(first_frame.wait(), max(0.1, setup_deadline - time.monotonic()))
            except (SetupError, asyncio.TimeoutError, aiohttp.ClientError, KeyError) as e:
                result = {"ok": False, "error": f"set-up failed: {e!r}",
                          "ice_state": pc.iceConnectionState, "connection_state": pc.connectionState,
                          "frames_total": len(frames), "duration_s": round(time.monotonic() - started, 3)}
                return result, 2

            t0 = time.monotonic() if args.keyless else frames[0][0]
            plan = sorted([(at, "substream", v) for at, v in substreams] + [(at, "temporal", v) for at, v in temporals],
                          key=lambda x: x[0])
            for at, kind, value in plan:
                if at <= 0 or at >= args.seconds:
                    continue
                delay = t0 + at - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                requests.append((time.monotonic(), kind, value))
                try:
                    await janus.message(configure(kind, value))
                except Exception as e:
                    requests[-1] = (requests[-1][0], kind, value, f"configure failed: {e!r}")
            remaining = t0 + args.seconds - time.monotonic()
            if remaining > 0:
                await asyncio.sleep(remaining)
            end = time.monotonic()
            inbound = await inbound_video()
            packets = sum(stream["packets_received"] for stream in inbound)
        finally:
            if drainer is not None:
                drainer.cancel()
            for task in consumers:
                task.cancel()
            try:
                await asyncio.wait_for(janus.close(), 5)
            except Exception:
                pass
            try:
                await asyncio.wait_for(pc.close(), 5)
            except Exception:
                pass

    if args.keyless:
        return summarize_keyless(args, frames, encoded_frames, packets, decode_errors, started, t0, end)
    return summarize(args, frames, requests, janus_events, expected, decode_errors, started, t0, end, inbound,
                     incomplete_frames)


def tap_frame_completeness():
    """Makes aiortc drop, as libwebrtc does, video frames assembled without their last packet, and
    returns the monotonic time of each.

    aiortc's jitter buffer ends a frame where the RTP timestamp changes; libwebrtc's packet buffer
    also wants the frame's last packet (marker bit, RFC 3550 §5.1 / RFC 7741 §4.1). Janus's
    streaming plugin reads each substream from its own socket, so at a substream switch it can cut
    the tail of the old substream's frame and, rewriting sequence numbers without a gap, hand the
    viewer a truncated frame: measured, each such frame was aiortc's one "failed to decode" 1-3 ms
    later, ~20 ms before the first picture of the new substream. Those frames are not decoded here
    (the caller checks they come only at switches); every other frame goes to the decoder as before."""
    from aiortc import jitterbuffer
    incomplete = []
    original = jitterbuffer.JitterBuffer.add

    def add(self, packet):
        if not self._is_video:
            return original(self, packet)
        ends = self.__dict__.setdefault("_viewer_frame_ends", set())
        if packet.marker:
            ends.add(packet.timestamp)
        pli_flag, frame = original(self, packet)
        if frame is not None:
            if frame.timestamp in ends:
                ends.discard(frame.timestamp)
            else:
                incomplete.append(time.monotonic())
                return pli_flag, None
        return pli_flag, frame

    jitterbuffer.JitterBuffer.add = add
    return incomplete


def tap_vp8_decoder():
    """Every frame aiortc's VP8 decoder is given, as (bytes, luma samples of the pictures it drew).

    aiortc decodes on its own thread and swallows what it raises, so the tap wraps the decoder's
    `decode` and appends (a list append is atomic); the pictures are sampled there, not kept."""
    from aiortc.codecs import vpx
    taps = []
    original = vpx.Vp8Decoder.decode

    def decode(self, encoded_frame):
        data, pictures = bytes(encoded_frame.data), []
        try:
            pictures = original(self, encoded_frame)
            return pictures
        finally:  # a frame libvpx refused is tapped too, with no pictures
            taps.append((data, [sframe_check.luma_samples(p) for p in pictures]))

    vpx.Vp8Decoder.decode = decode
    return taps


def referee_keyless(check_key, encoded_frames):
    """Opens each tapped frame with the room key, decodes the plaintext, and compares pictures."""
    import av
    opener = sframe_check.FrameOpener(base64.b64decode(check_key))
    decoder = av.CodecContext.create("libvpx", "r")
    opened, unopened, plaintext_pictures, compared, psnrs, samples = 0, 0, 0, 0, [], []
    for data, keyless_pictures in list(encoded_frames):
        try:
            plaintext = opener.open_vp8_frame(data)
        except sframe_check.OpenError as e:
            unopened += 1
            if len(samples) < 3:
                samples.append(str(e))
            continue
        opened += 1
        try:
            pictures = [sframe_check.luma_samples(p) for p in decoder.decode(av.Packet(plaintext))]
        except av.error.FFmpegError:
            pictures = []  # before the first key frame
        plaintext_pictures += len(pictures)
        for keyless, clear in zip(keyless_pictures, pictures):
            psnr = sframe_check.luma_psnr(keyless, clear)
            if psnr is not None:
                compared += 1
                psnrs.append(psnr)
    return {"frames_tapped": len(encoded_frames), "frames_opened": opened, "frames_unopened": unopened,
            "unopened_samples": samples, "plaintext_pictures": plaintext_pictures,
            "pictures_compared": compared, "max_keyless_psnr_db": round(max(psnrs), 2) if psnrs else None}


def summarize_keyless(args, frames, encoded_frames, packets, decode_errors, started, t0, end):
    """--keyless: what Janus relayed was ciphertext, and the keyless pictures are not the picture."""
    decoded = sum(1 for f in frames if t0 <= f[0] <= end)
    sent = round(30 * (end - t0))
    failures = []
    if packets < 100:
        failures.append(f"only {packets} video packets arrived")
    referee = referee_keyless(args.check_key, encoded_frames) if args.check_key else {}
    if not args.check_key:
        failures.append("no --check-key: nothing proves the frames were ciphertext")
    else:
        tapped, opened = referee["frames_tapped"], referee["frames_opened"]
        if tapped < 0.5 * sent:
            failures.append(f"only {tapped} of about {sent} frames reached the decoder")
        if opened < 0.95 * tapped:
            failures.append(f"only {opened} of {tapped} frames opened under the room key")
        if referee["plaintext_pictures"] < 0.5 * opened:
            failures.append(f"the opened plaintext decoded to only {referee['plaintext_pictures']} pictures")
        if referee["max_keyless_psnr_db"] is not None and referee["max_keyless_psnr_db"] >= 20:
            failures.append(f"a keyless picture resembles the plaintext one ({referee['max_keyless_psnr_db']} dB)")
    result = {"ok": not failures, "failures": failures, "video_packets_received": packets,
              "frames_decoded": decoded, "frames_sent_estimate": sent, **referee,
              "decode_errors": decode_errors.count, "decode_error_samples": decode_errors.samples,
              "setup_ms": round((t0 - started) * 1000.0, 1), "duration_s": round(end - started, 3)}
    return result, 0 if result["ok"] else 1


# How long before the first frame of a new resolution a cut-short frame counts as the switch's.
SWITCH_CUT_WINDOW_S = 0.2


def summarize(args, frames, requests, janus_events, expected, decode_errors, started, t0, end, inbound=(),
              incomplete_frames=()):
    ms = lambda t: round((t - t0) * 1000.0, 1)
    frames = [f for f in frames if f[0] <= end]
    by_res = {}
    for _, res in frames:
        by_res[res] = by_res.get(res, 0) + 1
    changes = []
    for (ta, ra), (tb, rb) in zip(frames, frames[1:]):
        if ra != rb:
            changes.append({"t_ms": ms(tb), "from": ra, "to": rb})
    # A stall that lasts to the end of the run counts as a gap too.
    gaps = [b[0] - a[0] for a, b in zip(frames, frames[1:])] + ([end - frames[-1][0]] if frames else [])
    max_gap = max(gaps) if gaps else 0.0

    def resolution_at(t):
        current = None
        for tf, res in frames:
            if tf > t:
                break
            current = res
        return current

    switches = []
    failures = []
    for req in requests:
        t_req, kind, value = req[0], req[1], req[2]
        if kind != "substream":
            continue
        entry = {"at_ms": ms(t_req), "substream": value, "initial": t_req < t0}
        if len(req) > 3:
            entry["error"] = req[3]
        want = expected[value] if 0 <= value < len(expected) else None
        before = resolution_at(t_req)
        entry["expected"] = want
        entry["resolution_before"] = before
        first_want = next((tf for tf, res in frames if tf >= t_req and res == want), None)
        first_change = next((tf for tf, res in frames if tf >= t_req and res != before), None)
        event = next((ta for ta, data in janus_events if ta >= t_req and data.get("substream") == value), None)
        if want == before:
            entry["latency_ms"] = 0.0
            entry["note"] = "already at this resolution"
        else:
            entry["latency_ms"] = round((first_want - t_req) * 1000.0, 1) if first_want else None
        entry["first_change_ms"] = round((first_change - t_req) * 1000.0, 1) if first_change else None
        # Frames at other resolutions on the way (Janus moves to ANY higher substream whose key frame
        # arrives first when switching up, then comes back down: a brief overshoot).
        until = first_want if first_want else end
        transit = [res for tf, res in frames if t_req <= tf < until and res not in (before, want)]
        entry["transit_frames"] = len(transit)
        entry["transit_resolutions"] = sorted(set(transit))
        entry["janus_event_ms"] = round((event - t_req) * 1000.0, 1) if event else None
        switches.append(entry)
        if args.require_switches and entry["latency_ms"] is None:
            failures.append(f"substream {value}: {want} never arrived")
        if (args.max_switch_ms is not None and not entry["initial"] and entry["latency_ms"] is not None
                and entry["latency_ms"] > args.max_switch_ms):
            failures.append(f"substream {value}: switch took {entry['latency_ms']} ms > {args.max_switch_ms}")
        if args.min_frames_per_resolution and want and by_res.get(want, 0) < args.min_frames_per_resolution:
            failures.append(f"substream {value}: only {by_res.get(want, 0)} frames at {want}")

    # Frame rate per period between consecutive requests (the settings in force are listed).
    periods = []
    substream, temporal = None, None
    for _, kind, value, *_ in (r for r in requests if r[0] < t0):
        if kind == "substream":
            substream = value
        else:
            temporal = value
    later = [r for r in requests if r[0] >= t0]
    boundaries = [t0] + [r[0] for r in later] + [end]
    for i in range(len(boundaries) - 1):
        if i > 0:
            _, kind, value = later[i - 1][:3]
            if kind == "substream":
                substream = value
            else:
                temporal = value
        a = boundaries[i] + (args.settle if i > 0 else 0.0)
        b = boundaries[i + 1]
        if b - a < 0.3:
            continue
        n = sum(1 for tf, _ in frames if a <= tf < b)
        resolutions = sorted({res for tf, res in frames if a <= tf < b})
        periods.append({"from_ms": ms(a), "to_ms": ms(b), "substream": substream, "temporal": temporal,
                        "frames": n, "fps": round(n / (b - a), 2), "resolutions": resolutions})
    fps_by_temporal = {}
    for p in periods:
        key = "default" if p["temporal"] is None else str(p["temporal"])
        agg = fps_by_temporal.setdefault(key, [0, 0.0])
        agg[0] += p["frames"]
        agg[1] += (p["to_ms"] - p["from_ms"]) / 1000.0
    fps_by_temporal = {k: round(n / s, 2) for k, (n, s) in fps_by_temporal.items() if s > 0}

    if not frames:
        failures.append("no frames decoded")
    if decode_errors.count:
        failures.append(f"{decode_errors.count} decode errors")
    # A frame cut short is the SFU's doing only at a switch: just before a new resolution shows.
    new_resolution_at = [b[0] for a, b in zip(frames, frames[1:]) if a[1] != b[1]]
    stray = [t for t in incomplete_frames if not any(0 <= at - t <= SWITCH_CUT_WINDOW_S for at in new_resolution_at)]
    if stray:
        failures.append(f"{len(stray)} frames arrived without their last packet away from a substream switch")
    if args.max_gap_ms is not None and max_gap * 1000.0 > args.max_gap_ms:
        failures.append(f"frames stopped for {round(max_gap * 1000.0)} ms > {args.max_gap_ms}")

    result = {
        "ok": not failures,
        "failures": failures,
        "frames_total": len(frames),
        "frames_by_resolution": by_res,
        "resolution_changes": changes,
        "switches": switches,
        "temporal_requests": [{"at_ms": ms(r[0]), "temporal": r[2], "initial": r[0] < t0}
                              for r in requests if r[1] == "temporal"],
        "periods": periods,
        "fps_by_temporal": fps_by_temporal,
        "fps_overall": round(len(frames) / (end - t0), 2) if end > t0 else 0.0,
        "max_frame_gap_ms": round(max_gap * 1000.0, 1),
        "frame_gaps_over_500ms": [{"after_ms": ms(a[0]), "gap_ms": round((b - a[0]) * 1000.0, 1), "last": a[1]}
                                  for a, b in zip(frames, [f[0] for f in frames[1:]] + [end]) if b - a[0] > 0.5],
        "inbound_video": list(inbound),
        "decode_errors": decode_errors.count,
        "decode_error_samples": decode_errors.samples,
        "decode_error_at_ms": [ms(t) for t in decode_errors.times],
        "incomplete_frames_at_ms": [ms(t) for t in incomplete_frames],
        "janus_events": [dict(data, t_ms=ms(at)) for at, data in janus_events],
        "janus_errors": [data for _, data in janus_events if "error" in data],
        "setup_ms": round((t0 - started) * 1000.0, 1),
        "duration_s": round(end - started, 3),
    }
    return result, 0 if result["ok"] else 1


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.ERROR)
    # A hard ceiling in case something below ignores its own timeouts.
    ceiling = args.setup_timeout + args.seconds + 15
    try:
        result, status = asyncio.run(asyncio.wait_for(run(args), ceiling))
    except asyncio.TimeoutError:
        result, status = {"ok": False, "error": f"viewer exceeded its {ceiling:.0f} s ceiling"}, 2
    except Exception as e:  # still one JSON line, so callers can report it
        result, status = {"ok": False, "error": f"viewer failed: {e!r}"}, 2
    print(json.dumps(result))
    return status


if __name__ == "__main__":
    sys.exit(main())
