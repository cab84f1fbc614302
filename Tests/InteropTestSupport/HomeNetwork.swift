import Foundation
import Glibc

/// A home network behind a NAT, inside the namespaces of scripts/netns-run.sh: a third network
/// namespace (the home host, 192.168.77.2, held by a sleeping process) joined by a veth pair to the
/// client host (192.168.77.1), which becomes its router: IPv4 forwarding on, and an nftables
/// masquerade rule for the home network's traffic leaving towards the peer host (veth-engine), so
/// the peer host sees it come from 10.99.0.1, as a server on the internet sees a home router.
/// `enter()` moves the calling thread into the home host (`setns(2)`), so sockets it opens there
/// stay there. `tearDown()` removes all of it.
public final class HomeNetwork: @unchecked Sendable {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    public static let homeAddress = "192.168.77.2"
    public static let routerAddress = "192.168.77.1"
    static let table = "media_engine_home_nat"

    private let holder = Process()
    private var forwardingBefore = "0"

    /// Builds the home network. Call only after `PrivateNamespace.require(for:)`.
    public init() throws {
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["-n", "sleep", "infinity"]
        try holder.run()
        let pid = String(holder.processIdentifier)
        let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let deadline = Date().addingTimeInterval(2)
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net")) == own, Date() < deadline { usleep(5_000) }
        forwardingBefore = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_forward", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "0"
        do {
            try Self.run("/usr/sbin/ip", ["link", "add", "veth-lan", "type", "veth", "peer", "name", "veth-home"])
            try Self.run("/usr/sbin/ip", ["link", "set", "veth-home", "netns", pid])
            try Self.run("/usr/sbin/ip", ["addr", "add", "\(Self.routerAddress)/24", "dev", "veth-lan"])
            try Self.run("/usr/sbin/ip", ["link", "set", "veth-lan", "up"])
            try Self.run("/usr/bin/nsenter", ["-t", pid, "-n", "sh", "-c",
                                              "ip link set lo up && ip addr add \(Self.homeAddress)/24 dev veth-home && ip link set veth-home up "
                                              + "&& ip route add default via \(Self.routerAddress)"])
            try "1".write(toFile: "/proc/sys/net/ipv4/ip_forward", atomically: false, encoding: .utf8)
            _ = try? Self.run("/usr/sbin/nft", ["delete", "table", "ip", Self.table])
            try Self.run("/usr/sbin/nft", ["add", "table", "ip", Self.table])
            try Self.run("/usr/sbin/nft", ["add", "chain", "ip", Self.table, "postrouting",
                                           "{ type nat hook postrouting priority 100; policy accept; }"])
            try Self.run("/usr/sbin/nft", ["add", "rule", "ip", Self.table, "postrouting", "ip", "saddr", "192.168.77.0/24",
                                           "oifname", "veth-engine", "masquerade"])
        } catch {
            tearDown()
            throw error
        }
    }

    /// Moves the calling thread into the home host's network namespace (for good: call it on a
    /// thread of the caller's own, never on a pool thread).
    public func enter() throws {
        let descriptor = open("/proc/\(holder.processIdentifier)/ns/net", O_RDONLY)
        guard descriptor >= 0 else { throw Problem(description: "cannot open the home host's namespace: errno \(errno)") }
        defer { close(descriptor) }
        // setns(2) is a GNU extension Glibc's Swift module does not declare: found by name.
        guard let symbol = dlsym(nil, "setns") else { throw Problem(description: "no setns in the C library") }
        let setns = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        let newNetworkNamespace: Int32 = 0x4000_0000  // CLONE_NEWNET
        guard setns(descriptor, newNetworkNamespace) == 0 else { throw Problem(description: "setns failed: errno \(errno)") }
    }

    /// Makes `process` run `executable` with `arguments` on the home host (`nsenter` into its
    /// network namespace, then the program itself).
    public func runOnHomeHost(_ process: Process, executable: String, arguments: [String]) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["-t", String(holder.processIdentifier), "-n", "--", executable] + arguments
    }

    /// Removes the veth pair, the NAT table and the home host; forwarding as it was.
    public func tearDown() {
        _ = try? Self.run("/usr/sbin/nft", ["delete", "table", "ip", Self.table])
        _ = try? Self.run("/usr/sbin/ip", ["link", "del", "veth-lan"])
        try? forwardingBefore.write(toFile: "/proc/sys/net/ipv4/ip_forward", atomically: false, encoding: .utf8)
        if holder.isRunning {
            // SIGKILL: a test process may hand its children SIGTERM ignored.
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
    }

    /// Runs `tool` with `arguments` to its end; throws with its output when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Problem(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// Runs `body` on a thread of its own inside the home host and returns what it returned.
    public func onHomeHost<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) throws -> Value {
        let box = ResultBox<Value>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            box.result = Result {
                try enter()
                return try body()
            }
            done.signal()
        }
        thread.start()
        done.wait()
        return try box.result!.get()
    }
}

/// Carries a thread's result back to the thread that waited for it.
private final class ResultBox<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}
