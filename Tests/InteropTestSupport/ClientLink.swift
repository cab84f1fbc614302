import Foundation

/// The client host's end of scripts/netns-run.sh's veth pair (veth-engine): taken down and up
/// again to cut the client off the network as a pulled cable or a lost Wi-Fi does (the address
/// stays; its route goes with the link and comes back with it), or given another address.
public enum ClientLink {
    public static let interface = "veth-engine"

    /// The address the client host moves to (`moveAddress`), in the veth pair's /24.
    public static let movedAddress = "10.99.0.3"

    /// `ip link set veth-engine up|down`.
    public static func set(up: Bool) throws { try ip(["link", "set", interface, up ? "up" : "down"]) }

    /// The client host changes networks: `from` removed from veth-engine, then `to` added (its
    /// route with it), as a laptop moving to another Wi-Fi gets another address.
    public static func moveAddress(from: String, to: String) throws {
        try ip(["addr", "del", "\(from)/24", "dev", interface])
        try ip(["addr", "add", "\(to)/24", "dev", interface])
    }

    /// The link up with `PrivateNamespace.localAddress` only, as scripts/netns-run.sh made it (for
    /// the tests that run after).
    public static func restore() {
        try? set(up: true)
        _ = try? ip(["addr", "del", "\(movedAddress)/24", "dev", interface])
        _ = try? ip(["addr", "add", "\(PrivateNamespace.localAddress)/24", "dev", interface])
    }

    /// `ip` with `arguments` (`HomeNetwork.run`: throws with its output when it fails).
    private static func ip(_ arguments: [String]) throws {
        try HomeNetwork.run("/usr/sbin/ip", arguments)
    }
}
