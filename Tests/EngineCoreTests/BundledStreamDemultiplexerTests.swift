import EngineCore
import RTPWire
import SessionCore
import Testing

/// `BundledStreamDemultiplexer` (RFC 8843 bundle): RTP goes to the endpoint of its stream by the
/// SSRC the offer announced or, for an SSRC nobody announced, by its MID header extension;
/// RTCP by its sender SSRC; what has no route is counted and dropped, and every RTP packet is
/// counted per SSRC on the socket, routed or not. Plain RTP (no SRTP) through a `MemoryTransport`.
struct BundledStreamDemultiplexerTests {
    static let peer = NetworkEndpoint.loopback(port: 9000)

    static func packet(ssrc: UInt32, payloadType: UInt8, sequence: UInt16, mid: String? = nil) throws -> [UInt8] {
        let extensions = try mid.map { try RTPHeaderExtensions(elements: [RTPHeaderExtensionElement(id: 4, data: Array($0.utf8)[...])]) }
        let header = RTPHeader(payloadType: payloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: ssrc,
                               extensions: extensions)
        return try RTPPacket(header: header, payload: [0xF8, 0xFF, 0xFE]).serialized()
    }

    static func endpoint(videoPayloadType: UInt8, audioPayloadType: UInt8) throws -> Subscriber {
        try Subscriber(configuration: SubscriberConfiguration(localSSRC: 77, videoPayloadType: videoPayloadType,
                                                              audioPayloadType: audioPayloadType, security: .insecurePlaintext),
                       transport: nil)
    }

    @Test func mediaReachesTheEndpointOfItsMidBySSRCOrByItsMIDExtension() throws {
        let transport = MemoryTransport()
        let demultiplexer = BundledStreamDemultiplexer(transport: transport)
        demultiplexer.midExtensionID = 4
        demultiplexer.map(ssrc: 1111, to: "0")
        let first = try Self.endpoint(videoPayloadType: 127, audioPayloadType: 111)
        let second = try Self.endpoint(videoPayloadType: 127, audioPayloadType: 111)
        demultiplexer.route(mid: "0", to: first)
        demultiplexer.route(mid: "2", to: second)

        // Announced SSRC; an unannounced one carrying mid "2"; its later packets without the extension.
        transport.inbox = try [Self.packet(ssrc: 1111, payloadType: 111, sequence: 1),
                               Self.packet(ssrc: 2222, payloadType: 111, sequence: 1, mid: "2"),
                               Self.packet(ssrc: 2222, payloadType: 111, sequence: 2),
                               Self.packet(ssrc: 3333, payloadType: 111, sequence: 1)].map { .init(peer: Self.peer, bytes: $0) }
        #expect(try demultiplexer.poll(timeoutMilliseconds: 0) == 4)
        #expect(first.statistics.audio.packetsReceived == 1)
        #expect(second.statistics.audio.packetsReceived == 2)
        #expect(demultiplexer.unroutedDatagrams == 1)
        #expect(demultiplexer.packetsReceived(ssrc: 3333) == 1)
        #expect(demultiplexer.packetsReceived(mid: "2") == 2)

        // A stream nobody takes any more is still counted on the socket, and reaches nobody.
        demultiplexer.removeRoute(mid: "2")
        transport.inbox = try [Self.packet(ssrc: 2222, payloadType: 111, sequence: 3)].map { .init(peer: Self.peer, bytes: $0) }
        try demultiplexer.poll(timeoutMilliseconds: 0)
        #expect(second.statistics.audio.packetsReceived == 2)
        #expect(demultiplexer.packetsReceived(mid: "2") == 3 && demultiplexer.unroutedDatagrams == 2)
    }

    @Test func shortDatagramsAndAMalformedExtensionAreCountedNotTrapped() throws {
        let transport = MemoryTransport()
        let demultiplexer = BundledStreamDemultiplexer(transport: transport)
        demultiplexer.midExtensionID = 4
        var truncated = try Self.packet(ssrc: 5555, payloadType: 96, sequence: 1, mid: "7")
        truncated[14] = 0xFF  // the extension block claims far more words than there are
        transport.inbox = [.init(peer: Self.peer, bytes: [0x80, 0x60]), .init(peer: Self.peer, bytes: truncated)]
        #expect(try demultiplexer.poll(timeoutMilliseconds: 0) == 2)
        #expect(demultiplexer.unroutedDatagrams == 2 && demultiplexer.datagramsReceived == 2)
    }
}
