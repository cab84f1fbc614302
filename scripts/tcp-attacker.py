#!/usr/bin/env python3
"""A stranger on loopback against a running engine's TCP side (issue 25), stdlib only.

Finds the process's listening TCP ports and UDP ports from /proc (as anyone on the host could
with ss), then for --seconds:
  impostor: from every UDP port of the process (the viewers' and publisher's sockets), opens a
            TCP connection to every listening port, sends an RTP-looking framed datagram every
            100 ms and reads whatever comes back; reconnects when the node closes it.
  flood:    holds --connections TCP connections to every listening port: a third idle, a third
            that send a length of 65535 and stall, a third that drip one byte a second;
            reconnects each one the node closes.
Prints one JSON object: ports found, connections opened and closed by the node, and the bytes
the engine sent to any of them (which must be 0: a stranger gets nothing).
"""
import argparse
import errno
import json
import os
import resource
import socket
import sys
import time


def socket_inodes(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def ports(table, inodes, listening_only):
    found = []
    with open(table) as lines:
        next(lines)
        for line in lines:
            fields = line.split()
            address, state, inode = fields[1], fields[3], fields[9]
            if inode not in inodes or (listening_only and state != "0A"):
                continue
            ip_hex, port_hex = address.split(":")
            if ip_hex == "0100007F":  # 127.0.0.1, little-endian
                found.append(int(port_hex, 16))
    return sorted(set(found))


class Stranger:
    def __init__(self, target, source_port, behaviour):
        self.target, self.source_port, self.behaviour = target, source_port, behaviour
        self.sock = None
        self.opened = 0
        self.closed_by_node = 0
        self.bind_failures = 0
        self.received = 0
        self.next_write = 0.0
        self.drip_index = 0

    def open(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.source_port:
            try:
                sock.bind(("127.0.0.1", self.source_port))
            except OSError:
                sock.close()
                self.bind_failures += 1
                return
        sock.setblocking(False)
        code = sock.connect_ex(("127.0.0.1", self.target))
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            return
        self.sock, self.opened, self.drip_index = sock, self.opened + 1, 0
        self.next_write = time.monotonic() + 0.05

    def step(self, now):
        if self.sock is None:
            self.open()
            return
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionResetError
                self.received += len(data)
        except BlockingIOError:
            pass
        except OSError:
            self.lost()
            return
        if now < self.next_write:
            return
        try:
            if self.behaviour == "impostor":
                rtcp = bytes([0x81, 0xC9, 0x00, 0x07]) + bytes(28)  # an RTCP RR-looking datagram
                self.sock.send(len(rtcp).to_bytes(2, "big") + rtcp)
                self.next_write = now + 0.1
            elif self.behaviour == "stall":
                if self.drip_index == 0:
                    self.sock.send(b"\xff\xff")
                    self.drip_index = 1
                self.next_write = now + 3600
            elif self.behaviour == "drip":
                self.sock.send(b"\x00")
                self.next_write = now + 1.0
        except BlockingIOError:
            pass
        except OSError:
            self.lost()

    def lost(self):
        """The node closed (or broke) the connection: reopened at the next step."""
        self.sock.close()
        self.sock = None
        self.closed_by_node += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--impostor", action="store_true")
    parser.add_argument("--connections", type=int, default=0, help="flood: connections per listening port")
    parser.add_argument("--wait", type=float, default=10, help="seconds to wait for the process's ports")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    # The process opens its sockets one participant at a time: wait until it listens, has UDP
    # ports, and no new UDP port appeared for half a second (every viewer's and the publisher's).
    deadline = time.monotonic() + args.wait
    listening, udp = [], []
    settled_since = None
    while time.monotonic() < deadline:
        try:
            inodes = socket_inodes(args.pid)
            listening = ports("/proc/net/tcp", inodes, True)
            seen = ports("/proc/net/udp", inodes, False)
        except OSError:
            seen = udp
        if seen != udp:
            udp, settled_since = seen, time.monotonic()
        if listening and udp and settled_since is not None and time.monotonic() - settled_since >= 0.5:
            break
        time.sleep(0.1)
    if not listening:
        print(json.dumps({"error": f"process {args.pid} has no listening TCP port on 127.0.0.1"}))
        return 2

    strangers = []
    if args.impostor:
        strangers += [Stranger(target, port, "impostor") for target in listening for port in udp]
    behaviours = ["idle", "stall", "drip"]
    strangers += [Stranger(target, 0, behaviours[index % 3]) for target in listening for index in range(args.connections)]
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        now = time.monotonic()
        for stranger in strangers:
            stranger.step(now)
        time.sleep(0.02)
    impostors = [s for s in strangers if s.behaviour == "impostor"]
    flood = [s for s in strangers if s.behaviour != "impostor"]
    print(json.dumps({
        "listeningPorts": listening, "udpPorts": udp,
        "impostorConnectionsOpened": sum(s.opened for s in impostors),
        "impostorBindFailures": sum(s.bind_failures for s in impostors),
        "impostorBytesReceived": sum(s.received for s in impostors),
        "floodConnectionsOpened": sum(s.opened for s in flood),
        "floodBytesReceived": sum(s.received for s in flood),
        "connectionsClosedByNode": sum(s.closed_by_node for s in strangers),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
