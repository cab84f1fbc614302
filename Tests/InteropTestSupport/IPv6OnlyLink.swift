import Foundation
import Glibc

/// scripts/netns-run.sh's two hosts made IPv6-only, as on a network without IPv4: the IPv4
/// addresses taken away (veth-engine's 10.99.0.1; on the peer host veth-peer's 10.99.0.2 and
/// the loopback's 127.0.0.1) and each veth end given a unique local address (RFC 4193, `nodad`:
/// no duplicate address detection to wait for). The client host keeps 127.0.0.1 on its loopback
/// only: the test process's own Foundation needs it (CFSocket's wake-up socket pair, without
/// which `Process.waitUntilExit` never returns), and no other machine can reach it. `restore()` puts the IPv4 addresses back and removes the IPv6
/// ones, for the suites that run after.
public enum IPv6OnlyLink {
    public static let clientAddress = "fd00:99::1"
    public static let peerAddress = "fd00:99::2"

    /// Removes the IPv4 addresses and adds the IPv6 ones, on both hosts.
    public static func enable() throws {
        try ip(["addr", "del", "\(PrivateNamespace.localAddress)/24", "dev", ClientLink.interface])
        try ip(["-6", "addr", "add", "\(clientAddress)/64", "dev", ClientLink.interface, "nodad"])
        try onPeerHost(["addr", "del", "\(PrivateNamespace.peerAddress)/24", "dev", "veth-peer"])
        try onPeerHost(["addr", "del", "127.0.0.1/8", "dev", "lo"])
        try onPeerHost(["-6", "addr", "add", "\(peerAddress)/64", "dev", "veth-peer", "nodad"])
    }

    /// Both hosts as scripts/netns-run.sh made them (what is already there is left as is).
    public static func restore() {
        _ = try? ip(["-6", "addr", "del", "\(clientAddress)/64", "dev", ClientLink.interface])
        _ = try? ip(["addr", "add", "\(PrivateNamespace.localAddress)/24", "dev", ClientLink.interface])
        _ = try? onPeerHost(["-6", "addr", "del", "\(peerAddress)/64", "dev", "veth-peer"])
        _ = try? onPeerHost(["addr", "add", "127.0.0.1/8", "dev", "lo"])
        _ = try? onPeerHost(["addr", "add", "\(PrivateNamespace.peerAddress)/24", "dev", "veth-peer"])
    }

    /// The IPv4 addresses (`ip -4 -o addr`, one line each) of the client host outside its
    /// loopback, and of the peer host, loopback included.
    public static func ipv4Addresses() throws -> (client: [String], peer: [String]) {
        func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
        let client = lines(try ip(["-4", "-o", "addr", "show"])).filter { !$0.contains(" lo ") && !$0.contains(" lo:") }
        return (client, lines(try onPeerHost(["-4", "-o", "addr", "show"])))
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> String {
        try run("/usr/sbin/ip", arguments)
    }

    /// `ip` on the peer host (nsenter into the namespace MEDIA_ENGINE_PEER_PID holds).
    @discardableResult
    private static func onPeerHost(_ arguments: [String]) throws -> String {
        guard let holder = ProcessInfo.processInfo.environment["MEDIA_ENGINE_PEER_PID"] else {
            throw PrivateNamespace.Missing(description: "no peer host (MEDIA_ENGINE_PEER_PID): run inside `unshare -n scripts/netns-run.sh`")
        }
        return try run("/usr/bin/nsenter", ["-t", holder, "-n", "--", "/usr/sbin/ip"] + arguments)
    }

    /// Runs `tool` to its end (`posix_spawn`, output through a pipe, `waitpid`): Foundation's
    /// `Process.waitUntilExit` missed these short-lived children's exits (left as zombies) when
    /// they were the test process's first. Throws with the output when the status is not 0.
    private static func run(_ tool: String, _ arguments: [String]) throws -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw PrivateNamespace.Missing(description: "pipe: \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { throw PrivateNamespace.Missing(description: "\(tool): posix_spawn \(spawned)") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count > 0 { output += buffer[0..<count] } else if count == 0 || errno != EINTR { break }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else {
            throw PrivateNamespace.Missing(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }
}
