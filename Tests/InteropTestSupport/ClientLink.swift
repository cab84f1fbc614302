import Foundation

/// The client host's end of scripts/netns-run.sh's veth pair (veth-engine): taken down and up
/// again to cut the client off the network as a pulled cable or a lost Wi-Fi does (the address
/// stays; its route goes with the link and comes back with it).
public enum ClientLink {
    public static let interface = "veth-engine"

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `ip link set veth-engine up|down`.
    public static func set(up: Bool) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["link", "set", interface, up ? "up" : "down"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "ip link set \(interface) failed: \(text)") }
    }
}
