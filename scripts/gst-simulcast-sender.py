#!/usr/bin/python3
"""GStreamer stand-in for `simulcast send` (dev checks only): SRTP simulcast VP8 into a Janus mountpoint.

Runs with Debian's python3 (python3-gi + gir1.2-gstreamer-1.0, installed by
scripts/install-interop-deps.sh); gst-launch-1.0 alone cannot set vp8enc's temporal-layer arrays.

One moving videotestsrc, scaled per layer; each layer has its own vp8enc (key frame every
--keyframe-interval frames, optionally 3 temporal layers in the libvpx 0-2-1-2 pattern), rtpvp8pay
(15-bit PictureID, TID/Y/TL0PICIDX from vp8enc's meta, its own SSRC) and srtpenc
(AES_CM_128_HMAC_SHA1_80 with the mountpoint's 30-byte key||salt, hex) into udpsink, lowest layer first.

With --rtcp-port (the mountpoint's videortcpport) it also does what Janus expects of a publisher:
sends a plain RTCP receiver report from one UDP socket every second so Janus learns where to send
feedback, and answers PLI/FIR naming any of its SSRCs with a key frame on every layer (at most one per
--pli-interval-ms per layer): Janus 1.1.2 always names the first layer's SSRC, whichever substream
a viewer is switching to (--pli-layer-only answers on the named layer only, to compare). Stops after --seconds or on SIGTERM/SIGINT.

  /usr/bin/python3 scripts/gst-simulcast-sender.py --key-hex HEX --ports P1,P2,P3 [--rtcp-port P]
      [--seconds 60] [--temporal-layers 3] [--keyframe-interval 30] [--fps 30]
"""
import argparse
import json
import random
import signal
import socket
import struct
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

SIZES = ["320x180", "640x360", "1280x720"]
KBPS = [150, 500, 1500]
# Temporal pattern (periodicity 4, layer ids 0,2,1,2): TL0 refs/updates LAST only; TL2 refs LAST and
# updates nothing; TL1 refs LAST and updates GOLDEN; the second TL2 refs LAST+GOLDEN, updates nothing.
# Dropping TL2, or TL1 and TL2, leaves a decodable stream.
TS_FLAGS = ("<no-ref-golden+no-ref-alt+no-upd-golden+no-upd-alt,"
            "no-ref-golden+no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy,"
            "no-ref-golden+no-ref-alt+no-upd-last+no-upd-alt,"
            "no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy>")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--ports", required=True, help="RTP ports, lowest layer first (2 or 3)")
    p.add_argument("--key-hex", required=True, help="30-byte SRTP master key||salt, hex")
    p.add_argument("--rtcp-port", type=int, default=None, help="mountpoint videortcpport (plain RTCP)")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--keyframe-interval", type=int, default=30)
    p.add_argument("--temporal-layers", type=int, choices=(1, 3), default=3)
    p.add_argument("--sizes", default=",".join(SIZES),
                   help="layer sizes, lowest first (e.g. 320x180,1280x720 to mimic --max-layer 2)")
    p.add_argument("--stop-layer", default=None, metavar="LAYER:SECONDS",
                   help="stop sending layer LAYER (0-based) after SECONDS, e.g. 2:6 (a paused top layer)")
    p.add_argument("--pli-interval-ms", type=float, default=300.0)
    p.add_argument("--pli-layer-only", dest="pli_all_layers", action="store_false",
                   help="answer PLI/FIR only on the layer whose SSRC it names (default: every layer, "
                        "because Janus names the first layer's SSRC whatever the target)")
    return p.parse_args()


def build(args, ports, ssrcs):
    desc = (f"videotestsrc is-live=true pattern=ball ! video/x-raw,width=1280,height=720,framerate={args.fps}/1"
            " ! tee name=t")
    for i, port in enumerate(ports):
        w, h = args.sizes.split(",")[i].split("x")
        bps = KBPS[i] * 1000
        desc += (f" t. ! queue max-size-buffers=2 leaky=downstream ! videoscale ! video/x-raw,width={w},height={h}"
                 f" ! vp8enc name=enc{i} deadline=1 cpu-used=8 threads=1 keyframe-max-dist={args.keyframe_interval}"
                 f" target-bitrate={bps} end-usage=cbr error-resilient=partitions")
        if args.temporal_layers == 3:
            desc += (" temporal-scalability-number-layers=3 temporal-scalability-periodicity=4"
                     f' temporal-scalability-layer-flags="{TS_FLAGS}"'
                     ' temporal-scalability-layer-sync-flags="<true,true,true,false>"')
        desc += (f" ! rtpvp8pay pt=96 picture-id-mode=15-bit mtu=1200 ssrc={ssrcs[i]}"
                 f" ! srtpenc key={args.key_hex} rtp-cipher=aes-128-icm rtp-auth=hmac-sha1-80"
                 f" ! valve name=valve{i} drop=false"
                 f" ! udpsink host={args.host} port={port} sync=false async=false")
    pipeline = Gst.parse_launch(desc)
    if args.temporal_layers == 3:
        for i in range(len(ports)):
            enc = pipeline.get_by_name(f"enc{i}")
            bps = KBPS[i] * 1000
            # GValueArray properties: gst-launch cannot parse these, set_property can.
            enc.set_property("temporal-scalability-layer-id", [0, 2, 1, 2])
            enc.set_property("temporal-scalability-rate-decimator", [4, 2, 1])
            enc.set_property("temporal-scalability-target-bitrate", [bps * 4 // 10, bps * 6 // 10, bps])
    return pipeline


def feedback_ssrcs(packet):
    """Media SSRCs asking for a key frame: PLI (PT 206 FMT 1) and FIR (PT 206 FMT 4) in a compound packet."""
    out = []
    i = 0
    while i + 4 <= len(packet):
        b0, pt, length = packet[i], packet[i + 1], struct.unpack("!H", packet[i + 2:i + 4])[0]
        end = i + 4 * (length + 1)
        if b0 >> 6 != 2 or end > len(packet):
            break
        fmt = b0 & 0x1F
        if pt == 206 and fmt == 1 and end - i >= 12:
            out.append(("pli", struct.unpack("!I", packet[i + 8:i + 12])[0]))
        elif pt == 206 and fmt == 4:
            j = i + 12
            while j + 8 <= end:
                out.append(("fir", struct.unpack("!I", packet[j:j + 4])[0]))
                j += 8
        i = end
    return out


def main():
    args = parse_args()
    ports = [int(p) for p in args.ports.split(",") if p]
    if not 1 <= len(ports) <= 3 or len(args.sizes.split(",")) < len(ports):
        sys.exit("gst-simulcast-sender: 1 to 3 ports, and a size for each")
    Gst.init(None)
    ssrcs = random.sample(range(1, 2**32 - 1), len(ports))
    pipeline = build(args, ports, ssrcs)
    loop = GLib.MainLoop()
    stats = {"ssrcs": ssrcs, "ports": ports, "plis": 0, "firs": 0, "keyframes_forced": 0, "rtcp_sent": 0,
             "feedback": []}
    started = time.monotonic()
    last_forced = [0.0] * len(ports)
    sender_ssrc = random.randrange(1, 2**32 - 1)

    def on_bus(_bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"gst-simulcast-sender: {err.message} ({dbg})", file=sys.stderr)
            stats["error"] = err.message
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        return True

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_bus)

    sock = None
    if args.rtcp_port:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("", 0))
        sock.setblocking(False)

        def send_rr():
            # RTCP RR with no report blocks: just tells Janus where our feedback socket is.
            try:
                sock.sendto(struct.pack("!BBHI", 0x80, 201, 1, sender_ssrc), (args.host, args.rtcp_port))
                stats["rtcp_sent"] += 1
            except OSError:
                pass
            return True

        def on_rtcp(_fd, _cond):
            while True:
                try:
                    data = sock.recv(2048)
                except BlockingIOError:
                    break
                for kind, ssrc in feedback_ssrcs(data):
                    stats["plis" if kind == "pli" else "firs"] += 1
                    now = time.monotonic()
                    layer = ssrcs.index(ssrc) if ssrc in ssrcs else None
                    stats["feedback"].append({"t": round(now - started, 3), "kind": kind, "layer": layer})
                    if layer is None:
                        continue
                    # Janus 1.1.2 puts the FIRST substream's SSRC in every PLI it sends for a
                    # simulcast rtp mountpoint, whichever substream a viewer switches to, so a
                    # key frame on "that layer" only would not help the switch: refresh them all.
                    for target in (range(len(ports)) if args.pli_all_layers else [layer]):
                        if (now - last_forced[target]) * 1000.0 < args.pli_interval_ms:
                            continue
                        last_forced[target] = now
                        structure = Gst.Structure.new_empty("GstForceKeyUnit")
                        structure.set_value("all-headers", True)
                        enc = pipeline.get_by_name(f"enc{target}")
                        enc.send_event(Gst.Event.new_custom(Gst.EventType.CUSTOM_DOWNSTREAM, structure))
                        stats["keyframes_forced"] += 1
            return True

        send_rr()
        GLib.timeout_add(1000, send_rr)
        GLib.io_add_watch(sock.fileno(), GLib.IO_IN, on_rtcp)

    def stop(*_):
        loop.quit()
        return False

    GLib.timeout_add(int(args.seconds * 1000), stop)
    if args.stop_layer:
        layer, after = args.stop_layer.split(":")

        def pause_layer():
            pipeline.get_by_name(f"valve{int(layer)}").set_property("drop", True)
            stats["stopped_layer"] = {"layer": int(layer), "t": round(time.monotonic() - started, 3)}
            return False

        GLib.timeout_add(int(float(after) * 1000), pause_layer)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, stop)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, stop)
    pipeline.set_state(Gst.State.PLAYING)
    print(json.dumps({"started": True, "ssrcs": ssrcs, "ports": ports}), file=sys.stderr, flush=True)
    try:
        loop.run()
    finally:
        pipeline.set_state(Gst.State.NULL)
        if sock:
            sock.close()
    print(json.dumps(stats), file=sys.stderr)
    return 1 if "error" in stats else 0


if __name__ == "__main__":
    sys.exit(main())
