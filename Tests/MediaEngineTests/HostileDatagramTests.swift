import Foundation
import Glibc
import MediaEngine
import Testing

/// Malformed datagrams at every socket the engine opened, while a call runs, seen from outside
/// as an attacker on the path would: the engine's ports are found the way `ss -p` finds them
/// (this process's socket inodes in /proc/self/fd, their addresses in /proc/self/net/udp).
@Suite(.serialized) struct HostileDatagramTests {
    @Test func garbageAtEveryEngineSocketChangesNothingTheSubscriberSees() async throws {
        let portsBefore = Set(loopbackUDPPortsOfThisProcess())
        let call = try await AliceToBobCall.start()
        let (engine, bobEvents, camera, remote, sizes) = (call.engine, call.bobEvents, call.camera, call.remote, call.sizes)
        let capture = Capture(camera, width: 640, height: 360)
        let large = VideoSize(width: 640, height: 360)
        #expect(try await capture.run(until: { sizes.last == large }, within: 5))

        let targets = Set(loopbackUDPPortsOfThisProcess()).subtracting(portsBefore).sorted()
        #expect(targets.count >= 3)  // the publisher's, the room node's for alice, bob's subscriber's (and any other engine's in this process)
        let sprayer = try HostileSender()
        var generator = SystemRandomNumberGenerator()
        let framesBefore = sizes.count
        for _ in 0..<20 {
            for port in targets {
                for _ in 0..<34 { sprayer.send(HostileSender.garbage(using: &generator), to: port) }
            }
            try await capture.run(seconds: 1.0 / 30)
        }
        let sent = sprayer.sent
        #expect(sent >= 2_000)
        // The call goes on at the size it had: frames keep arriving, none of another size.
        try await capture.run(seconds: 1.5)
        #expect(sizes.count - framesBefore >= 30)
        #expect(sizes.last == large)
        #expect(!bobEvents.all.contains { if case .failure = $0 { return true } else { return false } })
        let stats = try await remote.stats()
        #expect(stats.currentSpatialLayer == 1 && stats.frameSize == large)
        await engine.close()
    }
}

/// UDP ports bound to 127.0.0.1 by sockets this process holds open.
func loopbackUDPPortsOfThisProcess() -> [UInt16] {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    var inodes: Set<String> = []
    for descriptor in descriptors {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
              target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
    }
    guard let table = try? String(contentsOfFile: "/proc/self/net/udp", encoding: .utf8) else { return [] }
    return table.split(separator: "\n").dropFirst().compactMap { line -> UInt16? in
        let fields = line.split(separator: " ")
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
        guard fields.count > 9, inodes.contains(String(fields[9])) else { return nil }
        let local = fields[1].split(separator: ":")
        guard local.count == 2, local[0] == "0100007F" else { return nil }
        return UInt16(local[1], radix: 16)
    }
}

/// A plain UDP socket that sends hostile datagrams to 127.0.0.1 ports.
final class HostileSender {
    private let descriptor: Int32
    private(set) var sent = 0

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8], to port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if result >= 0 { sent += 1 }
    }

    /// Random bytes shaped to pass the first checks: empty, short, RTP-like (version 2, any
    /// payload type), RTCP-like (PT 192–223: SR, RR, PLI, NACK, REMB, BYE…), and oversized.
    static func garbage(using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        let length: Int
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: length = 0
        case 1: length = Int.random(in: 1..<12, using: &generator)
        case 2: length = Int.random(in: 1500..<4000, using: &generator)
        default: length = Int.random(in: 12..<1400, using: &generator)
        }
        var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        if length >= 2 {
            bytes[0] = 0x80 | (bytes[0] & 0x3F)
            if Bool.random(using: &generator) { bytes[1] = UInt8.random(in: 192...223, using: &generator) }
        }
        return bytes
    }
}
