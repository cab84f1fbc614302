import Foundation

/// The two hosts scripts/netns-run.sh makes (`unshare -n`): the client host the tests run on
/// (veth-engine, 10.99.0.1) and a peer host in a network namespace of its own (veth-peer,
/// 10.99.0.2) where servers and foreign peers run (Janus, coturn, aiortc), joined by a veth pair
/// as two machines by a cable. The interop tests that gather ICE candidates run only there, so
/// nothing reaches this machine's interfaces, and nothing is addressed to a server at the
/// client's own address.
public enum PrivateNamespace {
    /// The address of our end of the namespace's veth pair.
    public static let localAddress = "10.99.0.1"
    /// The peer host's address (the far end of the veth pair).
    public static let peerAddress = "10.99.0.2"

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Throws `Missing` (naming `suite` and how to run it) outside the namespace.
    public static func require(for suite: String) throws {
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let initial = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/1/ns/net")) ?? ""
        guard ProcessInfo.processInfo.environment["MEDIA_ENGINE_NETNS"] == "1", ours != initial else {
            throw Missing(description: "\(suite) needs the private network namespace of scripts/netns-run.sh: "
                + "`unshare -n scripts/netns-run.sh swift test --skip-build --filter \(suite)` (make test does)")
        }
    }

    /// Makes `process` run `executable` with `arguments` on the peer host: `nsenter` enters the
    /// peer host's network namespace (MEDIA_ENGINE_PEER_PID, the process holding it) and becomes
    /// the program, so `process`'s PID and signals are the program's.
    public static func runOnPeerHost(_ process: Process, executable: URL, arguments: [String]) throws {
        guard let holder = ProcessInfo.processInfo.environment["MEDIA_ENGINE_PEER_PID"], Int32(holder) != nil else {
            throw Missing(description: "no peer host (MEDIA_ENGINE_PEER_PID): run inside `unshare -n scripts/netns-run.sh`")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["-t", holder, "-n", "--", executable.path] + arguments
    }
}
