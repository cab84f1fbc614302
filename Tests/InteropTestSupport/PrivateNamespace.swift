import Foundation

/// The private network namespace scripts/netns-run.sh makes (`unshare -n` + a veth pair of its
/// own, 10.99.0.1/10.99.0.2): the interop tests that gather ICE candidates run only there, so
/// nothing reaches this machine's interfaces.
public enum PrivateNamespace {
    /// The address of our end of the namespace's veth pair.
    public static let localAddress = "10.99.0.1"

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
}
