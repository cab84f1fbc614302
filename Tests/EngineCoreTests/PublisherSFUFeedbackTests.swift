import Foundation
import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore

/// Whether each video layer's first packet from `start` on begins a key frame (nil: layer silent).
private func keyFrameStarts(_ rig: PublisherRig, receiver: TestReceiver, from start: Int) throws -> [UInt32: Bool] {
    var result: [UInt32: Bool] = [:]
    for sent in try sentRTP(rig.transport, receiver: receiver, from: start) {
        let packet = sent.packet
        if result[packet.header.ssrc] == nil { result[packet.header.ssrc] = try startsKeyFrame(packet.payload) }
    }
    return result
}

/// What an SFU such as Janus's streaming plugin sends: PLI naming the lowest layer whatever layer
/// it switches to, REMB with the lowest viewer's estimate, plain RTCP.
@Suite struct PublisherSFUFeedbackTests {
    @Test func pliNamingAnyLayerRefreshesEveryLayerThrottledPerTrack() throws {
        let rig = try PublisherRig()  // .everyLayer is the default
        let receiver = try TestReceiver()
        try rig.sendFrames(3)
        var start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: false])
        // PLI names layer 0 (the SSRC Janus always names): both layers start a key frame.
        let pli0 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        #expect(try rig.publisher.handleIncoming(pli0).keyFramesRequested == 1)
        start = rig.transport.sent.count
        try rig.sendFrames(1)  // the clock moves 33 ms
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: true, 1001: true])
        // Another layer's SSRC within 500 ms (the default interval): the same track, throttled.
        let pli1 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))])
        let fir1 = try receiver.protectFeedback([.fullIntraRequest(.init(senderSSRC: 9, entries: [.init(ssrc: 1001, sequenceNumber: 1)]))])
        #expect(try rig.publisher.handleIncoming(pli1).keyFramesRequested == 0)
        #expect(try rig.publisher.handleIncoming(fir1).keyFramesRequested == 0)
        #expect(rig.publisher.keyFrameRequestsThrottled == 2)
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: false])
        // After the interval, a FIR naming the top layer refreshes both again.
        rig.clock.advance(milliseconds: 500)
        let fir1Later = try receiver.protectFeedback([.fullIntraRequest(.init(senderSSRC: 9, entries: [.init(ssrc: 1001, sequenceNumber: 2)]))])
        #expect(try rig.publisher.handleIncoming(fir1Later).keyFramesRequested == 1)
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: true, 1001: true])
    }

    /// Janus asks once when a subscriber joins; if that lands inside the interval of an earlier
    /// request, the key frame must still come (libwebrtc would make the SFU ask again).
    @Test func aThrottledRequestIsServedOnceTheIntervalHasPassed() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(3)
        let pli = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        #expect(try rig.publisher.handleIncoming(pli).keyFramesRequested == 1)
        try rig.sendFrames(1)  // the key frame for the first request; the clock moves 33 ms
        for _ in 0..<2 {  // asked twice inside the interval: one key frame owed
            let late = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))])
            #expect(try rig.publisher.handleIncoming(late).keyFramesRequested == 0)
        }
        var start = rig.transport.sent.count
        try rig.sendFrames(13)  // 33 + 13 x 33 = 462 ms < 500: still owed
        #expect(try sentRTP(rig.transport, receiver: receiver, from: start).allSatisfy { !(try startsKeyFrame($0.packet.payload)) })
        rig.clock.advance(milliseconds: 40)
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: true, 1001: true])
        #expect(rig.publisher.keyFramesRequested == 2 && rig.publisher.keyFrameRequestsThrottled == 2)
        rig.clock.advance(milliseconds: 400)
        start = rig.transport.sent.count
        try rig.sendFrames(1)  // served once, not again
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: false])
    }

    @Test func namedLayerOptionRefreshesOnlyThatLayer() throws {
        let rig = try PublisherRig(keyFrameScope: .namedLayer)
        let receiver = try TestReceiver()
        try rig.sendFrames(3)
        let pli0 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        #expect(try rig.publisher.handleIncoming(pli0).keyFramesRequested == 1)
        var start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: true, 1001: false])
        let pli1 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))])
        #expect(try rig.publisher.handleIncoming(pli1).keyFramesRequested == 1)  // its own throttle
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: true])
    }

    @Test func rembPausesTheTopLayerAndItResumesWithAKeyFrame() throws {
        // 640x360 plan: 320x180 (150 kbps) + 640x360 (500 kbps).
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(3)
        func remb(_ bps: UInt64, ssrcs: [UInt32] = [1000]) throws -> [UInt8] {
            try receiver.protectFeedback([.receiverEstimatedMaxBitrate(.init(senderSSRC: 9, bitrate: bps, ssrcs: ssrcs))])
        }
        // Enough for both: nothing changes.
        var outcome = try rig.publisher.handleIncoming(try remb(1_000_000))
        #expect(outcome.rembs == 1 && outcome.rembBitrate == 1_000_000 && outcome.layersPaused == 0)
        // 400 kbps cannot carry 650: the top layer pauses, the lowest keeps flowing.
        outcome = try rig.publisher.handleIncoming(try remb(400_000))
        #expect(outcome.layersPaused == 1)
        #expect(rig.publisher.rembActiveLayerCount == 1)
        // Paused for bandwidth: no output, but the configured 500 kbps is kept for the resume.
        #expect(rig.publisher.encoder?.activeLayerIndices == [0])
        #expect(rig.publisher.encoder?.isPaused(layer: 1, reason: .bandwidth) == true)
        #expect(try rig.publisher.encoder?.targetBitrateKbps(forLayer: 1) == 500)
        var start = rig.transport.sent.count
        try rig.sendFrames(3)
        #expect(try Set(sentRTP(rig.transport, receiver: receiver, from: start).map(\.packet.header.ssrc)) == [1000])
        // A REMB for someone else's SSRC changes nothing.
        outcome = try rig.publisher.handleIncoming(try remb(10_000_000, ssrcs: [4242]))
        #expect(outcome.unknownSSRC == 1 && outcome.rembs == 0)
        // 700 kbps would fit 650 but not with 20 % headroom; 800 does, held for 1 s.
        outcome = try rig.publisher.handleIncoming(try remb(700_000))
        #expect(outcome.layersResumed == 0)
        outcome = try rig.publisher.handleIncoming(try remb(800_000))
        #expect(outcome.layersResumed == 0)
        rig.clock.advance(milliseconds: 1000)
        outcome = try rig.publisher.handleIncoming(try remb(800_000))
        #expect(outcome.layersResumed == 1)
        #expect(rig.publisher.rembActiveLayerCount == 2)
        #expect(rig.publisher.encoder?.activeLayerIndices == [0, 1])
        start = rig.transport.sent.count
        try rig.sendFrames(1)
        // The resumed layer starts on a key frame; the lowest layer just goes on.
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: true])
        #expect(rig.publisher.layerPausesByREMB == 1 && rig.publisher.layerResumesByREMB == 1)
        #expect(rig.publisher.rembsReceived == 5)
    }

    @Test func pausedLayersResumeWhenRembsStop() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(2)
        let remb = try receiver.protectFeedback([.receiverEstimatedMaxBitrate(.init(senderSSRC: 9, bitrate: 200_000, ssrcs: [1000]))])
        #expect(try rig.publisher.handleIncoming(remb).layersPaused == 1)
        try rig.sendFrames(100)  // 3.3 s without a REMB: still limited
        #expect(rig.publisher.rembActiveLayerCount == 1)
        rig.clock.advance(milliseconds: 2000)
        let start = rig.transport.sent.count
        try rig.sendFrames(1)  // > 5 s after the REMB: the limit lapses before this frame
        #expect(rig.publisher.rembActiveLayerCount == 2 && rig.publisher.layerResumesByREMB == 1)
        #expect(try keyFrameStarts(rig, receiver: receiver, from: start) == [1000: false, 1001: true])
    }

    @Test func rembIgnoredByPolicyIsOnlyCounted() throws {
        let rig = try PublisherRig(rembPolicy: .ignore)
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        let remb = try receiver.protectFeedback([.receiverEstimatedMaxBitrate(.init(senderSSRC: 9, bitrate: 10_000, ssrcs: []))])
        let outcome = try rig.publisher.handleIncoming(remb)
        #expect(outcome.rembs == 1 && outcome.layersPaused == 0)
        #expect(rig.publisher.rembActiveLayerCount == 2)
        let start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try Set(sentRTP(rig.transport, receiver: receiver, from: start).map(\.packet.header.ssrc)) == [1000, 1001])
    }

    @Test func hostileRembValuesDoNotTrap() throws {
        let rig = try PublisherRig()
        try rig.sendFrames(1)
        for (exponent, mantissa) in [(UInt8(63), UInt32(0x3FFFF)), (0, 0), (62, 1), (17, 0x3FFFF)] {
            let plain = try RTCPCompoundPacket(packets: [.receiverEstimatedMaxBitrate(
                .init(senderSSRC: 9, exponent: exponent, mantissa: mantissa, ssrcs: [1001]))]).serialized()
            var output = [UInt8](repeating: 0, count: plain.count + 64)
            let length = try TestReceiver().outbound.protectRTCP(plain, into: &output)
            _ = try? rig.publisher.handleIncoming(Array(output.prefix(length)))
        }
        #expect((1...2).contains(rig.publisher.rembActiveLayerCount))
    }

    @Test func plainRTCPModeSendsPlainReportsAndTakesPlainFeedbackWhileRTPStaysSRTP() throws {
        let rig = try PublisherRig(security: .srtpPlainRTCP(local: try testMaterial()))
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        #expect(rig.publisher.path.isSecure && rig.publisher.path.rtcpIsPlain)
        var reports = 0
        for datagram in rig.transport.sent {
            if try RTPOrRTCP.classify(datagram.bytes) == .rtcp {
                // Plain: parses as it is, SR + SDES CNAME, no SRTCP index/tag.
                let packets = try RTCPCompoundPacket(parsing: datagram.bytes).packets
                guard case .senderReport = packets.first else { Issue.record("not an SR"); continue }
                reports += 1
            } else {
                let (isRTCP, plain) = try receiver.unprotect(datagram.bytes)  // SRTP: authenticates
                #expect(!isRTCP)
                #expect(plain.count < datagram.bytes.count)
            }
        }
        #expect(reports == 2)
        let pli = try RTCPCompoundPacket(packets: [.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))]).serialized()
        #expect(try rig.publisher.handleIncoming(pli).keyFramesRequested == 1)
        let remb = try RTCPCompoundPacket(packets: [.receiverEstimatedMaxBitrate(.init(senderSSRC: 9, bitrate: 100_000, ssrcs: [1000]))]).serialized()
        #expect(try rig.publisher.handleIncoming(remb).layersPaused == 1)
    }

    @Test func rtcpDestinationGetsEveryReportFromTheSocketThatReceivesFeedback() throws {
        let mediaSocket = try UDPSocket()
        let rtcpSocket = try UDPSocket()
        try mediaSocket.setReceiveBufferSize(1 << 20)
        let socket = try UDPSocket(sendingToward: mediaSocket.localEndpoint)
        let routing = try PublisherRouting(destination: mediaSocket.localEndpoint, rtcpMux: false,
                                           rtcpDestination: rtcpSocket.localEndpoint)
        var random = SplitMix64(seed: 11)
        let clock = ManualClock()
        let plan = try LayerPlan(width: 640, height: 360)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 500),
                                                  security: .srtpPlainRTCP(local: try testMaterial())),
            transport: socket, routing: routing, clock: clock.mediaClock, using: &random)
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        try publisher.send(video: try #require(try source.nextFrame()))
        var buffer = [UInt8](repeating: 0, count: 2048)
        // Media: RTP only.
        var media = 0
        while let got = try buffer.withUnsafeMutableBytes({ try mediaSocket.receive(into: $0, timeoutMilliseconds: 100) }) {
            #expect(try RTPOrRTCP.classify(buffer[0..<got.count]) == .rtp)
            media += 1
        }
        #expect(media > 0)
        // RTCP: one plain SR + SDES per layer, from the publisher's socket.
        var from: NetworkEndpoint?
        var ssrcs: Set<UInt32> = []
        while let got = try buffer.withUnsafeMutableBytes({ try rtcpSocket.receive(into: $0, timeoutMilliseconds: 100) }) {
            let packets = try RTCPCompoundPacket(parsing: buffer[0..<got.count]).packets
            if case let .senderReport(sr) = packets.first { ssrcs.insert(sr.ssrc) }
            from = got.from
        }
        #expect(ssrcs == [500, 501])
        let sender = try #require(from)
        #expect(sender.port == socket.localEndpoint.port)
        // The SFU answers to where the RTCP came from: plain PLI naming the lowest layer.
        let pli = try RTCPCompoundPacket(packets: [.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 500))]).serialized()
        try rtcpSocket.send(pli, to: .loopback(port: sender.port))
        let outcome = try #require(try publisher.pollIncoming(timeoutMilliseconds: 1000))
        #expect(outcome.keyFramesRequested == 1)
        #expect(publisher.feedbackErrors == 0)
    }
}
