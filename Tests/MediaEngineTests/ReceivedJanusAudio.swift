import EngineCore
import RTPWire
import SessionCore
import Synchronization
@testable import MediaEngine

/// A clock the test moves by hand, shared by the endpoints and the room's speakers and quality.
final class HandClock: Sendable {
    private let microseconds = Atomic<Int64>(10_000_000)
    var now: Int64 { microseconds.load(ordering: .relaxed) }
    func advance(milliseconds: Int64) { microseconds.add(milliseconds * 1_000, ordering: .relaxed) }
    var mediaClock: MediaClock {
        MediaClock(monotonicMicroseconds: { [self] in now }, wallMicroseconds: { [self] in 1_700_000_000_000_000 + now })
    }
}

/// A received Janus stream as `JanusSubscriberConnection` makes one (plain RTP, no socket: the
/// test hands its endpoint datagrams), and the Opus packets a publisher's microphone sends.
struct ReceivedJanusAudio {
    let stream: JanusReceivedStream
    private(set) var sequence: UInt16 = 0
    let ssrc: UInt32

    init(publisherId: String, feed: Int, mid: String, ssrc: UInt32, kind: PublishedTrackKind = .microphone,
         clock: HandClock) throws {
        let subscriber = try Subscriber(configuration: SubscriberConfiguration(localSSRC: 0x0500_0000 + UInt32(feed),
                                                                               security: .insecurePlaintext),
                                        transport: nil, clock: clock.mediaClock)
        subscriber.rtcpSink = { _ in }
        stream = JanusReceivedStream(publisherId: publisherId, feed: feed, feedMid: "0", mid: mid, kind: kind, subscriber: subscriber)
        self.ssrc = ssrc
    }

    /// One 20 ms Opus packet carrying the RFC 6464 level (extension id 1, `RTPHeaderExtensionMap.defaults`).
    mutating func receive(dBov: UInt8, voice: Bool) throws {
        sequence &+= 1
        let extensions = try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 1, data: [(voice ? 0x80 : 0) | dBov])])
        let packet = try RTPPacket(header: RTPHeader(payloadType: 111, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960,
                                                     ssrc: ssrc, extensions: extensions),
                                   payload: [0xF8, 0xFF, 0xFE]).serialized()
        stream.subscriber.handle(datagram: packet, from: nil)
    }

    /// A packet the network lost: its sequence number is used up, nothing arrives.
    mutating func skip() { sequence &+= 1 }
}
