import EngineCore
import RTPWire
import SRTP
import Simulcast
import SessionCore

/// The node under test in `simulcast-bench forward`: a `ForwardingNode` on its own loopback
/// socket taking the recorded publisher's SRTP (video layers and Opus audio), forwarding to
/// `count` subscribers that are real UDP sockets on 127.0.0.1, each with its own SRTP keys.
/// Subscriber `i` prefers `preferences[i % 3]` (high, medium, low: top, middle and lowest layer).
/// Time is a manual clock the replay sets to each packet's media time.
final class ForwardScene {
    /// The node's clock, in microseconds.
    final class Clock {
        var microseconds: Int64 = 1_000_000
    }

    static let preferences: [VideoQuality] = [.high, .medium, .low]

    let clock = Clock()
    let node: ForwardingNode
    let ids: [String]
    let receivers: [UDPSocket]
    /// Each subscriber's inbound SRTP session: what it receives is checked to unprotect.
    private let receiverSessions: [SRTPSession]
    /// Where the node's key-frame requests for the publisher go (drained, not answered).
    let publisherRTCP: UDPSocket
    private var drainBuffer = [UInt8](repeating: 0, count: 2048)
    /// Datagrams the subscribers received, and those that failed to unprotect.
    private(set) var received = 0
    private(set) var receivedUnprotectFailures = 0

    init(recording: ForwardRecording, publisherKeys: SRTPKeyingMaterial, subscribers count: Int) throws {
        publisherRTCP = try UDPSocket()
        let clock = clock
        node = try ForwardingNode(
            configuration: ForwardingNodeConfiguration(
                plan: recording.plan, layerSSRCs: recording.videoSSRCs, publisherKeys: publisherKeys,
                feedbackKeys: try Self.keys(seed: 200), publisherRTCPEndpoint: publisherRTCP.localEndpoint,
                audioSSRC: recording.audioSSRC),
            clock: MediaClock { clock.microseconds })
        var ids: [String] = []
        var receivers: [UDPSocket] = []
        var sessions: [SRTPSession] = []
        for index in 0..<count {
            let receiver = try UDPSocket()
            try receiver.setReceiveBufferSize(4 << 20)
            let sendKeys = try Self.keys(seed: 1 + index)
            let id = "subscriber-\(index)"
            try node.addSubscriber(ForwardedSubscriberConfiguration(
                id: id, outputSSRC: 0x5E00_0000 + UInt32(index), destination: receiver.localEndpoint,
                sendKeys: sendKeys, receiveKeys: try Self.keys(seed: 100 + index),
                preference: .quality(Self.preferences[index % Self.preferences.count])))
            ids.append(id)
            receivers.append(receiver)
            sessions.append(try SRTPSession(direction: .inbound, keyingMaterial: sendKeys))
        }
        self.ids = ids
        self.receivers = receivers
        receiverSessions = sessions
    }

    /// 30 bytes of key and salt, different per seed.
    static func keys(seed: Int) throws -> SRTPKeyingMaterial {
        try SRTPKeyingMaterial(keyAndSalt: (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed &* 31 &+ 1) })
    }

    /// Media and audio packets the node has handed to its subscribers so far.
    var forwardedPackets: (video: Int, audio: Int) {
        var video = 0, audio = 0
        for id in ids {
            guard let counters = node.counters(for: id) else { continue }
            video += counters.packetsSent
            audio += counters.audioPacketsSent
        }
        return (video, audio)
    }

    /// Whether every subscriber forwards the layer its selector targets (warm-up is over).
    var everySubscriberSwitched: Bool {
        ids.allSatisfy { id in
            guard let stats = try? node.forwarder.stats(for: id), let current = stats.current else { return false }
            return current == stats.target
        }
    }

    /// How many subscribers forward each spatial layer, lightest first.
    var subscribersPerLayer: [Int] {
        var counts = Array(repeating: 0, count: node.configuration.layerSSRCs.count)
        for id in ids {
            if let spatial = try? node.forwarder.stats(for: id).current?.spatial, counts.indices.contains(spatial) {
                counts[spatial] += 1
            }
        }
        return counts
    }

    /// Hands one round to the node, packet by packet, with the clock at each packet's media time.
    func replay(_ round: ForwardRound) {
        let source = publisherRTCP.localEndpoint
        for index in 0..<round.count {
            clock.microseconds = 1_000_000 + round.mediaMicroseconds[index]
            node.handle(datagram: round.datagram(index), from: source)
        }
    }

    /// Empties every subscriber's socket (checking each datagram unprotects with its keys) and
    /// the publisher-side RTCP socket.
    func drain() throws {
        for (receiver, session) in zip(receivers, receiverSessions) {
            while let got = try receiver.receive(into: &drainBuffer, timeoutMilliseconds: 0) {
                received += 1
                // Media and the node's sender reports arrive on the one port (RFC 5761).
                let rtcp = (try? RTPOrRTCP.classify(drainBuffer[0..<got.count])) == .rtcp
                if (try? session.unprotect(inPlace: &drainBuffer, packetLength: got.count, rtcp: rtcp)) == nil {
                    receivedUnprotectFailures += 1
                }
            }
        }
        while try publisherRTCP.receive(into: &drainBuffer, timeoutMilliseconds: 0) != nil {}
    }
}
