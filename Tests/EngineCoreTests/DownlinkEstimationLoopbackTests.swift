import MediaCodecs
import RTPWire
import SessionCore
import Simulcast
import Testing
@testable import EngineCore

/// The node's estimate of a subscriber's downlink end to end on loopback UDP, in simulated time:
/// a publisher (no estimation of its own) sends to a `ForwardingNode` that numbers what it
/// forwards per subscriber, takes the subscriber's transport-wide feedback into GCC and probes
/// with padding; between the node and the subscriber a relay whose forward link is a
/// bottleneck (rate + 300 ms FIFO), squeezed mid-call.
@Suite struct DownlinkEstimationLoopbackTests {
    @Test func aSqueezedDownlinkMovesTheSubscriberDownWithinTwoSecondsAndProbingBringsTheTopLayerBack() throws {
        let rig = try DownlinkEstimatingNode(firstSSRC: 0x7000, estimation: .init(initialBitsPerSecond: 1_000_000), seed: 33)
        let (clock, node) = (rig.clock, rig.node)
        let path = try BottleneckedSubscriber(clock: clock, capacityBitsPerSecond: 3_000_000)
        let (relay, subscriber) = (path.relay, path.subscriber)
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "viewer", outputSSRC: 0xD1, destination: relay.senderFacingEndpoint, sendKeys: nil, receiveKeys: nil))
        var decoded = 0
        subscriber.onVideoFrame = { _ in decoded += 1 }

        var sent = SentBytesWindow()
        func run(milliseconds: Int64) throws {
            try rig.run(milliseconds: milliseconds, subscriber: subscriber, relay: relay) {
                let counters = node.counters(for: "viewer")!
                sent.record(atMicroseconds: clock.now, totalBytes: counters.bytesSent + counters.probeBytesSent)
            }
        }
        /// Bits per second the node sent the viewer over the last 500 ms (video and probes).
        func sendRate() -> Double { sent.bitsPerSecond }
        func layer() throws -> Int? { try node.stats(for: "viewer").currentSpatialLayer }

        try run(milliseconds: 4_000)
        let counters = try #require(node.counters(for: "viewer"))
        #expect(counters.transportFeedbacksReceived > 30)
        let before = node.estimatedBitsPerSecond(for: "viewer") ?? 0
        #expect(before >= 700_000)  // enough for the 640x360 layer at full frame rate
        #expect(try layer() == 1)
        relay.forward.configuration.capacityBitsPerSecond = 300_000
        let squeezed = clock.now
        var downAt: Int64?
        var rembWhenDown: UInt64?
        while clock.now - squeezed < 4_000_000 {
            try run(milliseconds: 100)
            if downAt == nil, (node.estimatedBitsPerSecond(for: "viewer") ?? .max) < 330_000, try layer() == 0 {
                downAt = clock.now - squeezed
                rembWhenDown = node.counters(for: "viewer")?.lastREMBBitsPerSecond
            }
        }
        print("downlink estimation: \(before) bps estimated at 3 Mbps; squeezed to 300 kbps: estimate under 330 kbps "
              + "with the viewer on layer 0 after \(downAt.map { "\($0 / 1000) ms" } ?? "never") (the viewer's REMB then "
              + "\(rembWhenDown.map(String.init) ?? "none") bps), node sending "
              + "\(Int(sendRate())) bps, \(relay.forward.statistics.droppedByQueue) datagrams tail-dropped")
        #expect((downAt ?? .max) <= 2_000_000)
        #expect((rembWhenDown ?? .max) >= 330_000)  // the node's own estimate moved it, not the viewer's REMB
        #expect(sendRate() < 330_000)

        // The squeeze ends: the node probes the viewer's link (padding the subscriber counts and
        // drops) and the viewer is back on the top layer within 10 s.
        relay.forward.configuration.capacityBitsPerSecond = 3_000_000
        let opened = clock.now
        let probesBefore = node.counters(for: "viewer")!.probePacketsSent
        var upAt: Int64?
        while clock.now - opened < 10_000_000, upAt == nil {
            try run(milliseconds: 100)
            if try layer() == 1 { upAt = clock.now - opened }
        }
        let after = try #require(node.counters(for: "viewer"))
        print("downlink estimation: link open again: top layer after \(upAt.map { "\($0 / 1000) ms" } ?? "never"), "
              + "estimate \(node.estimatedBitsPerSecond(for: "viewer") ?? 0) bps, \(after.probePacketsSent - probesBefore) probe packets, "
              + "\(subscriber.statistics.paddingPackets) padding packets counted and dropped by the subscriber, "
              + "\(after.transportFeedbacksReceived) feedback reports")
        #expect((upAt ?? .max) <= 10_000_000)
        #expect(after.probePacketsSent > probesBefore)
        #expect(subscriber.statistics.paddingPackets > 0 && subscriber.statistics.video.decoderErrors == 0)
        #expect(decoded > 200)
    }

    /// Without downlink estimation the node leaves the publisher's numbers alone and probes
    /// nothing; with it, every packet the subscriber gets carries the node's own consecutive
    /// numbers (the subscriber's feedback reports no gaps on a clean link).
    @Test func theNodeNumbersWhatItSendsEachSubscriberConsecutively() throws {
        let rig = try DownlinkEstimatingNode(firstSSRC: 0x7100, estimation: .init(), seed: 34)
        let viewers = try (0..<2).map { _ in try UDPSocket() }
        for (index, viewer) in viewers.enumerated() {
            try viewer.setReceiveBufferSize(1 << 20)
            // One viewer watches the small layer, one the large: different packets, each numbered 0, 1, 2, ...
            try rig.node.addSubscriber(ForwardedSubscriberConfiguration(
                id: "viewer\(index)", outputSSRC: 0xD1 + UInt32(index), destination: viewer.localEndpoint, sendKeys: nil,
                receiveKeys: nil, preference: .quality(index == 0 ? .low : .high)))
        }
        for _ in 0..<20 {
            try rig.sendFrame()
            rig.clock.advance(milliseconds: 33)
            try rig.node.poll(timeoutMilliseconds: 0)
        }
        var buffer = [UInt8](repeating: 0, count: 2048)
        for viewer in viewers {
            var numbers: [UInt16] = []
            while let received = try viewer.receive(into: &buffer, timeoutMilliseconds: 0) {
                guard let packet = try? RTPPacket(parsing: buffer[0..<received.count]),
                      let number = try packet.header.extensions?.value(TransportSequenceNumber.self, map: .defaults) else { continue }
                numbers.append(number.value)
            }
            #expect(numbers.count > 20)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        }
    }

    /// Lying or broken feedback from a subscriber: truncated reports, results for numbers the
    /// node never sent (far in the future), every packet "arrived" at one instant (an infinite
    /// rate) or nothing arrived at all. Dropped and counted where it cannot be used; the estimate
    /// stays within its floor and ceiling whatever the subscriber claims.
    @Test func lyingFeedbackIsDroppedAndCountedAndTheEstimateStaysWithinItsBounds() throws {
        let bounds = SendSideBandwidthEstimator.Configuration(initialBitsPerSecond: 1_000_000, minimumBitsPerSecond: 50_000,
                                                              maximumBitsPerSecond: 4_000_000)
        let rig = try DownlinkEstimatingNode(firstSSRC: 0x7200, estimation: bounds, seed: 35)
        let node = rig.node
        let viewer = try UDPSocket()
        try viewer.setReceiveBufferSize(1 << 20)
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "viewer", outputSSRC: 0xD1, destination: viewer.localEndpoint, sendKeys: nil, receiveKeys: nil))
        var numbers: [UInt16] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        func forward(frames: Int) throws {
            for _ in 0..<frames {
                try rig.sendFrame()
                rig.clock.advance(milliseconds: 33)
                try node.poll(timeoutMilliseconds: 0)
            }
            while let received = try viewer.receive(into: &buffer, timeoutMilliseconds: 0) {
                if let packet = try? RTPPacket(parsing: buffer[0..<received.count]),
                   let number = try? packet.header.extensions?.value(TransportSequenceNumber.self, map: .defaults) {
                    numbers.append(number.value)
                }
            }
        }
        func feedback(_ results: [TransportWideFeedback.PacketResult], reference: Int32 = 0) throws -> [UInt8] {
            let report = try TransportWideFeedback(senderSSRC: 0xAB, mediaSSRC: 0xD1, referenceTime: reference,
                                                   feedbackPacketCount: 0, packets: results)
            return try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 0xAB)),
                                                    .transportWideFeedback(report)]).serialized()
        }
        func estimateWithinBounds() -> Bool {
            guard let estimate = node.estimatedBitsPerSecond(for: "viewer") else { return true }
            return (Int(bounds.minimumBitsPerSecond)...Int(bounds.maximumBitsPerSecond)).contains(estimate)
        }

        try forward(frames: 30)
        try #require(numbers.count > 30)
        // A truncated report: an RTCP error, nothing else.
        let whole = try feedback(numbers.prefix(10).map { .init(sequenceNumber: $0, receiveDelta: 4) })
        node.handle(datagram: whole.prefix(whole.count - 6), from: viewer.localEndpoint)
        #expect(node.counters(for: "viewer")?.rtcpErrors == 1)
        // Numbers 30,000 ahead of anything sent: every result dropped and counted.
        let future = numbers.last! &+ 30_000
        node.handle(datagram: try feedback((0..<20).map { .init(sequenceNumber: future &+ $0, receiveDelta: 4) }),
                    from: viewer.localEndpoint)
        #expect(node.counters(for: "viewer")?.transportFeedbackResultsDropped == 20)
        #expect(estimateWithinBounds())
        // Everything sent "arrived" at the same instant, again and again: the estimate may climb,
        // never past its ceiling.
        for _ in 0..<40 {
            try forward(frames: 3)
            let recent = numbers.suffix(12)
            node.handle(datagram: try feedback(recent.map { .init(sequenceNumber: $0, receiveDelta: 0) }), from: viewer.localEndpoint)
            #expect(estimateWithinBounds())
        }
        // Then nothing arrives, for ten seconds of reports: the estimate falls, never under its floor.
        for _ in 0..<100 {
            try forward(frames: 3)
            let recent = numbers.suffix(12)
            var lost = recent.map { TransportWideFeedback.PacketResult(sequenceNumber: $0, receiveDelta: nil) }
            lost.append(.init(sequenceNumber: recent.last! &+ 1, receiveDelta: 4))  // a report ends on a received packet
            node.handle(datagram: try feedback(lost), from: viewer.localEndpoint)
            #expect(estimateWithinBounds())
        }
        let counters = try #require(node.counters(for: "viewer"))
        print("lying feedback: \(counters.transportFeedbacksReceived) reports, \(counters.transportFeedbackResultsDropped) results dropped, "
              + "\(counters.rtcpErrors) RTCP errors, estimate \(node.estimatedBitsPerSecond(for: "viewer") ?? 0) bps")
        #expect(node.estimatedBitsPerSecond(for: "viewer") == Int(bounds.minimumBitsPerSecond))
        #expect(counters.transportFeedbacksReceived == 1 + 40 + 100)
    }
}
