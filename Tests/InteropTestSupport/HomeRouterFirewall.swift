import Foundation

/// The home router (the client host of `HomeNetwork`) as a firewall that lets only TURN through:
/// an nftables forward chain that passes UDP between the home network and the peer host only to
/// and from one port (the TURN server's), and drops the rest (host and server-reflexive ICE checks,
/// media sent directly), counting both. With `blockingAllUDP` it drops every UDP datagram between
/// them, TURN's too (TCP still passes). `remove()` deletes the table.
public final class HomeRouterFirewall {
    /// What the rules saw: UDP to and from the TURN port (passed), and the UDP dropped.
    public struct Counters: Sendable, CustomStringConvertible {
        public var turnPackets = 0, turnBytes = 0
        public var droppedPackets = 0

        public var description: String { "\(turnPackets) TURN datagrams (\(turnBytes) bytes) passed, \(droppedPackets) other UDP dropped" }
    }

    static let table = "media_engine_home_firewall"

    public init(turnPort: UInt16, blockingAllUDP: Bool = false) throws {
        let (home, peer) = ("192.168.77.0/24", PrivateNamespace.peerAddress)
        _ = try? HomeNetwork.run("/usr/sbin/nft", ["delete", "table", "ip", Self.table])
        try HomeNetwork.run("/usr/sbin/nft", ["add", "table", "ip", Self.table])
        try HomeNetwork.run("/usr/sbin/nft", ["add", "chain", "ip", Self.table, "forward",
                                              "{ type filter hook forward priority 0; policy accept; }"])
        let verdict = blockingAllUDP ? "drop" : "accept"
        for rule in [["ip", "saddr", home, "ip", "daddr", peer, "udp", "dport", String(turnPort), "counter", verdict],
                     ["ip", "saddr", peer, "ip", "daddr", home, "udp", "sport", String(turnPort), "counter", verdict],
                     ["ip", "saddr", home, "ip", "daddr", peer, "meta", "l4proto", "udp", "counter", "drop"],
                     ["ip", "saddr", peer, "ip", "daddr", home, "meta", "l4proto", "udp", "counter", "drop"]] {
            try HomeNetwork.run("/usr/sbin/nft", ["add", "rule", "ip", Self.table, "forward"] + rule)
        }
        self.blockingAllUDP = blockingAllUDP
    }

    private let blockingAllUDP: Bool

    /// The rules' counters now (in rule order: TURN out, TURN in, dropped out, dropped in).
    public func counters() throws -> Counters {
        let listing = try HomeNetwork.run("/usr/sbin/nft", ["list", "table", "ip", Self.table])
        let words = listing.split(whereSeparator: \.isWhitespace)
        var values: [(packets: Int, bytes: Int)] = []
        for index in words.indices where words[index] == "packets" && index + 3 < words.count {
            values.append((Int(words[index + 1]) ?? 0, Int(words[index + 3]) ?? 0))
        }
        guard values.count == 4 else { throw HomeNetwork.Problem(description: "four counters expected in: \(listing)") }
        var counters = Counters(turnPackets: values[0].packets + values[1].packets, turnBytes: values[0].bytes + values[1].bytes,
                                droppedPackets: values[2].packets + values[3].packets)
        if blockingAllUDP {  // the first two rules dropped too
            counters.droppedPackets += counters.turnPackets
            (counters.turnPackets, counters.turnBytes) = (0, 0)
        }
        return counters
    }

    public func remove() {
        _ = try? HomeNetwork.run("/usr/sbin/nft", ["delete", "table", "ip", Self.table])
    }
}
