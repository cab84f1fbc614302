import EngineCore
import RTPWire
import SRTP

/// The floors a forwarded packet cannot go below, measured in the same run as the node on the
/// same packets: one libsrtp2 protect (`SRTPSession.protectRTP`, i.e. `srtp_protect`, the suite
/// the subscribers use), one loopback `sendto` (the kernel's UDP path to a socket on
/// 127.0.0.1, as the node's sends go), and one `srtp_unprotect` of each incoming datagram. Each
/// packet counts once per subscriber forwarded its layer (audio: every subscriber), the mix the
/// node forwards in steady state.
struct ForwardFloor {
    /// Thread CPU ns per protect, averaged over the mix.
    var protectNanoseconds: Double
    /// Thread CPU ns per unprotect of an incoming datagram (the publisher's SRTP), averaged over a round.
    var unprotectNanoseconds: Double = 0
    /// Thread CPU ns per loopback `sendto`, averaged over the same mix of protected packets.
    var sendNanoseconds: Double
    /// Packets in the mix.
    var packets: Int

    /// Measures `passes` passes over the mix for subscribers on `layers` (nil: not on a layer).
    static func measure(recording: ForwardRecording, publisherKeys: SRTPKeyingMaterial,
                        layers: [Int?], keys: SRTPKeyingMaterial, passes: Int = 3) throws -> ForwardFloor {
        var mix: [(subscriber: Int, bytes: [UInt8])] = []
        for (subscriber, layer) in layers.enumerated() {
            for packet in recording.packets where packet.layer == nil || packet.layer == layer {
                mix.append((subscriber, packet.bytes))
            }
        }
        var output = [UInt8](repeating: 0, count: 2048)
        var protectedLengths = [Int](repeating: 0, count: mix.count)
        var protectNanoseconds: Int64 = 0
        for _ in 0..<passes {
            // One session per subscriber's share, as each subscriber has its own: libsrtp refuses
            // to protect the same index twice in one session.
            var sessions: [SRTPSession] = []
            for _ in layers { sessions.append(try SRTPSession(direction: .outbound, keyingMaterial: keys)) }
            let start = threadCPUNanoseconds()
            for index in mix.indices {
                let session = sessions[mix[index].subscriber]
                protectedLengths[index] = try mix[index].bytes.withUnsafeBytes { source in
                    try output.withUnsafeMutableBytes { try session.protectRTP(source, into: $0) }
                }
            }
            protectNanoseconds += threadCPUNanoseconds() - start
        }

        let receiver = try UDPSocket()
        try receiver.setReceiveBufferSize(4 << 20)
        let sender = try UDPSocket()
        var drainBuffer = [UInt8](repeating: 0, count: 2048)
        var sendNanoseconds: Int64 = 0
        for _ in 0..<passes {
            for batch in stride(from: 0, to: mix.count, by: 256) {
                let start = threadCPUNanoseconds()
                for index in batch..<min(mix.count, batch + 256) {
                    try output.withUnsafeBytes {
                        try sender.send(UnsafeRawBufferPointer(rebasing: $0[0..<protectedLengths[index]]), to: receiver.localEndpoint)
                    }
                }
                sendNanoseconds += threadCPUNanoseconds() - start
                while try receiver.receive(into: &drainBuffer, timeoutMilliseconds: 0) != nil {}
            }
        }
        // The first round, protected afresh: a new receiving session starts at rollover counter 0
        // (RFC 3711 §3.3.1), so it must see each stream from its start; the node's last round may
        // have wrapped a sequence number past 65535 (random initial numbers, about 1 run in 10),
        // and a fresh session would then reject it as a forgery.
        var round = try ForwardRound(recording: recording, keys: publisherKeys)
        try round.prepare(0, of: recording)
        var unprotectNanoseconds: Int64 = 0
        for _ in 0..<passes {
            let inbound = try SRTPSession(direction: .inbound, keyingMaterial: publisherKeys)
            for index in 0..<round.count {
                let datagram = round.datagram(index)
                output.replaceSubrange(0..<datagram.count, with: datagram)  // fits: output is 2048 bytes
                let start = threadCPUNanoseconds()
                _ = try output.withUnsafeMutableBytes { try inbound.unprotectRTP(inPlace: $0, packetLength: datagram.count) }
                unprotectNanoseconds += threadCPUNanoseconds() - start
            }
        }
        let count = Double(max(1, mix.count * passes))
        return ForwardFloor(protectNanoseconds: Double(protectNanoseconds) / count,
                            unprotectNanoseconds: Double(unprotectNanoseconds) / Double(max(1, round.count * passes)),
                            sendNanoseconds: Double(sendNanoseconds) / count, packets: mix.count)
    }
}
