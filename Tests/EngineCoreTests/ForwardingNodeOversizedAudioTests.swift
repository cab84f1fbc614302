import Testing
import RTPWire
import Simulcast
@testable import EngineCore

/// A forwarding node takes the publisher's audio as it comes (up to its 2048-byte receive buffer)
/// and re-sends it to each subscriber; a datagram larger than its send buffer is a counted send
/// failure for plain and SRTP subscribers alike, never a trap. (Found by the `node` fuzz target:
/// Tests/Fuzz/FailCases/node/crash-7fc10308a594f6e3be995e48ba56dc9af517656a.)
@Suite struct ForwardingNodeOversizedAudioTests {
    @Test func oversizedAudioToAPlainSubscriberIsASendFailure() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(
            plan: plan, layerSSRCs: [1, 2], publisherKeys: nil, feedbackKeys: nil, audioSSRC: 0xA0))
        let viewer = try UDPSocket()
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "viewer", outputSSRC: 0xD1, destination: viewer.localEndpoint, sendKeys: nil, receiveKeys: nil))
        var packet: [UInt8] = []
        try RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 960, ssrc: 0xA0).serialize(into: &packet)
        packet += [UInt8](repeating: 0x55, count: 2000 - packet.count)

        node.handle(datagram: packet, from: .loopback(port: 40_999))

        #expect(node.counters.audioPackets == 1)
        #expect(node.counters.sendFailures == 1)
        #expect(node.counters(for: "viewer")?.audioPacketsSent == 0)
    }
}
