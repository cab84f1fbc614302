import Foundation
import Glibc

/// UDP blocked for real, in the private network namespace the test runs in (scripts/netns-run.sh
/// under `unshare -n`): an nftables table that drops every UDP datagram delivered in the namespace
/// (the input hook, so senders see success, as behind a firewall that silently drops), and the
/// kernel's count of UDP datagrams sent in the namespace (/proc/net/snmp `Udp: OutDatagrams`).
/// Nothing here can reach this machine's own interfaces: call it only after
/// `PrivateNamespace.require(for:)`.
public enum NamespaceFirewall {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    public static let table = "media_engine_udp_block"

    /// Runs `body` with every UDP datagram in the namespace dropped; the rule goes afterwards,
    /// whatever `body` did. Returns what `body` returned and how many datagrams the rule dropped.
    public static func withUDPBlocked<Result>(_ body: () async throws -> Result) async throws -> (Result, dropped: Int) {
        _ = try? await nft(["delete", "table", "inet", table])  // a table left by an interrupted run
        try await nft(["add", "table", "inet", table])
        try await nft(["add", "chain", "inet", table, "input", "{ type filter hook input priority 0; policy accept; }"])
        try await nft(["add", "rule", "inet", table, "input", "meta", "l4proto", "udp", "counter", "drop"])
        let result: Result
        do {
            result = try await body()
        } catch {
            _ = try? await nft(["delete", "table", "inet", table])
            throw error
        }
        let listing = try await nft(["list", "table", "inet", table])
        try await nft(["delete", "table", "inet", table])
        guard let packets = listing.split(separator: " ").drop(while: { $0 != "packets" }).dropFirst().first.flatMap({ Int($0) }) else {
            throw Problem(description: "no counter in: \(listing)")
        }
        return (result, packets)
    }

    /// UDP datagrams sent in this namespace so far (every socket of every process in it).
    public static func udpDatagramsSent() throws -> Int {
        let snmp = try String(contentsOfFile: "/proc/net/snmp", encoding: .utf8)
        let lines = snmp.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }
        guard lines.count >= 2 else { throw Problem(description: "no Udp lines in /proc/net/snmp") }
        let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
        guard let index = names.firstIndex(of: "OutDatagrams"), index < values.count, let count = Int(values[index]) else {
            throw Problem(description: "no Udp OutDatagrams in /proc/net/snmp")
        }
        return count
    }

    /// Runs nft with `arguments` (`posix_spawn`, its output into a temporary file), waiting by
    /// polling `waitpid(WNOHANG)` between task sleeps: no thread of the small pool is blocked.
    @discardableResult
    private static func nft(_ arguments: [String]) async throws -> String {
        let outputPath = NSTemporaryDirectory() + "nft-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = (["/usr/sbin/nft"] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/sbin/nft", &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Problem(description: "cannot run /usr/sbin/nft (scripts/install-deps.sh installs nftables): errno \(spawned)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw Problem(description: "nft \(arguments.joined(separator: " ")) failed (wait status \(status)): \(text)")
        }
        return text
    }
}
