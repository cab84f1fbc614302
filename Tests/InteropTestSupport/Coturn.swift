import Foundation
import Glibc

/// Debian's coturn (`turnserver`) as STUN and TURN server on scripts/netns-run.sh's peer host:
/// listening and relaying on 10.99.0.2:`port`, long-term credentials (user alice, password secret,
/// realm engine.test), no TLS, until `stop`.
public final class Coturn {
    public static let username = "alice", password = "secret", realm = "engine.test"
    let process = Process()
    public let port: UInt16

    public init(port: UInt16) throws {
        self.port = port
        try PrivateNamespace.runOnPeerHost(process, executable: URL(fileURLWithPath: "/usr/bin/turnserver"), arguments: [
            "--listening-ip", PrivateNamespace.peerAddress, "--relay-ip", PrivateNamespace.peerAddress, "-p", String(port),
            "--lt-cred-mech", "--user", "\(Self.username):\(Self.password)", "--realm", Self.realm,
            "--no-tls", "--no-dtls", "--no-cli", "--min-port", "51000", "--max-port", "51100", "--log-file", "stdout",
            "--userdb", NSTemporaryDirectory() + "turndb-\(port)", "--pidfile", NSTemporaryDirectory() + "turn-\(port).pid",
        ])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()  // until it listens, requests are retransmitted (RFC 8489 §6.2.1)
    }

    /// SIGTERM, then SIGKILL if coturn is still up after 2 s.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
