import Foundation
import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore
import SessionCore

@Suite struct PublisherWireTests {
    @Test func protectedPacketsUnprotectAndCarryTheSpecExtensions() throws {
        let rig = try PublisherRig()
        try rig.sendFrames(3)
        let receiver = try TestReceiver()
        let packets = try sentRTP(rig.transport, receiver: receiver)
        #expect(packets.count >= 6)
        let map = RTPHeaderExtensionMap.defaults
        var previousTransportSequence: UInt16?
        var ridsBySSRC: [UInt32: String] = [:]
        for sent in packets {
            let packet = sent.packet
            let extensions = try #require(packet.header.extensions)
            #expect(try extensions.value(MediaIdentifier.self, map: map)?.value == "0")
            let rid = try #require(try extensions.value(RTPStreamID.self, map: map))
            ridsBySSRC[packet.header.ssrc] = rid.value
            #expect(try extensions.value(AbsSendTime.self, map: map) != nil)
            let transportSequence = try #require(try extensions.value(TransportSequenceNumber.self, map: map))
            if let previous = previousTransportSequence { #expect(transportSequence.value == previous &+ 1) }
            previousTransportSequence = transportSequence.value
            #expect(packet.header.payloadType == 96)
            _ = try VP8PayloadDescriptor.parse(packet.payload)
        }
        // Two layers (640x360 plan): q on the first SSRC, f on the second; transport-wide
        // numbers ran across both.
        #expect(ridsBySSRC == [1000: "q", 1001: "f"])
    }

    @Test func sequenceNumbersAndMarkersFollowFramesPerSSRC() throws {
        let rig = try PublisherRig()
        try rig.sendFrames(2)
        let packets = try sentRTP(rig.transport, receiver: TestReceiver())
        for ssrc: UInt32 in [1000, 1001] {
            let stream = packets.map(\.packet).filter { $0.header.ssrc == ssrc }
            for (a, b) in zip(stream, stream.dropFirst()) { #expect(b.header.sequenceNumber == a.header.sequenceNumber &+ 1) }
            #expect(stream.filter(\.header.marker).count == 2)
            #expect(Set(stream.map(\.header.timestamp)).count == 2)
        }
        let stats = rig.publisher.statistics
        #expect(stats.map(\.name) == ["q", "f"])
        #expect(stats.map { Int($0.packets) } == [1000, 1001].map { ssrc in packets.filter { $0.packet.header.ssrc == ssrc }.count })
    }

    @Test func pcapTapAndUDPSendDeliverEveryPacket() throws {
        let receiverSocket = try UDPSocket()
        try receiverSocket.setReceiveBufferSize(4 << 20)
        let pcapPath = FileManager.default.temporaryDirectory.appendingPathComponent("pub-\(UUID().uuidString).pcap").path
        defer { try? FileManager.default.removeItem(atPath: pcapPath) }
        let socket = try UDPSocket(sendingToward: receiverSocket.localEndpoint)
        let pcap = try PcapFile(path: pcapPath)
        let plan = try LayerPlan(width: 320, height: 180)
        var random = SplitMix64(seed: 7)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 5),
                                                  security: .srtp(local: try testMaterial())),
            transport: socket, routing: try PublisherRouting(destination: receiverSocket.localEndpoint),
            clock: ManualClock().mediaClock, using: &random)
        publisher.path.recording = pcap
        let source = try VideoSource(testSceneWidth: 320, height: 180)
        for _ in 0..<3 { try publisher.send(video: try #require(try source.nextFrame())) }
        try pcap.close()
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 2048)
        while try buffer.withUnsafeMutableBytes({ try receiverSocket.receive(into: $0, timeoutMilliseconds: 100) }) != nil {
            received += 1
        }
        #expect(received == publisher.path.datagramsSent)
        var reader = try PcapReader([UInt8](Data(contentsOf: URL(fileURLWithPath: pcapPath))))
        #expect(try reader.readAll().count == publisher.path.datagramsSent)
    }

    @Test func insecureOptInSendsPlainRTP() throws {
        let rig = try PublisherRig(insecure: true)
        try rig.sendFrames(1)
        #expect(!rig.publisher.path.isSecure)
        for datagram in rig.transport.sent where try RTPOrRTCP.classify(datagram.bytes) == .rtp {
            let packet = try RTPPacket(parsing: datagram.bytes)
            _ = try VP8PayloadDescriptor.parse(packet.payload)
        }
    }
}

@Suite struct PublisherFeedbackTests {
    @Test func pictureLossIndicationMakesTheNextFrameAKeyFrameOnThatLayer() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(4)
        let beforeLast = rig.transport.sent.count
        try rig.sendFrames(1)
        func firstPacket(ofLayerSSRC ssrc: UInt32, from start: Int) throws -> RTPPacket? {
            try sentRTP(rig.transport, receiver: receiver, from: start).map(\.packet).first { $0.header.ssrc == ssrc }
        }
        // Without a request, frame 5 is a delta frame.
        #expect(try !startsKeyFrame(try #require(try firstPacket(ofLayerSSRC: 1001, from: beforeLast)).payload))
        let pli = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))])
        let outcome = try rig.publisher.handleIncoming(pli)
        #expect(outcome.keyFrameRequests == 1 && outcome.keyFramesRequested == 1)
        let start = rig.transport.sent.count
        try rig.sendFrames(1)
        #expect(try startsKeyFrame(try #require(try firstPacket(ofLayerSSRC: 1001, from: start)).payload))
    }

    @Test func namedLayerKeyFrameRequestsAreRateLimitedPerSSRC() throws {
        let rig = try PublisherRig(keyFrameScope: .namedLayer)
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        let pli0 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        let pli1 = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))])
        let fir0 = try receiver.protectFeedback([.fullIntraRequest(.init(senderSSRC: 9, entries: [.init(ssrc: 1000, sequenceNumber: 1)]))])
        #expect(try rig.publisher.handleIncoming(pli0).keyFramesRequested == 1)
        #expect(try rig.publisher.handleIncoming(fir0).keyFramesRequested == 0)  // same SSRC, too soon
        #expect(try rig.publisher.handleIncoming(pli1).keyFramesRequested == 1)  // other SSRC
        #expect(rig.publisher.keyFrameRequestsThrottled == 1)
        rig.clock.advance(milliseconds: 500)  // the default interval
        let pliAgain = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        #expect(try rig.publisher.handleIncoming(pliAgain).keyFramesRequested == 1)
        let unknown = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 4242))])
        #expect(try rig.publisher.handleIncoming(unknown).unknownSSRC == 1)
    }

    @Test func nackResendsTheExactPacketAndCountsMisses() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(2)
        let packets = try sentRTP(rig.transport, receiver: receiver).filter { $0.packet.header.ssrc == 1000 }
        let lost = try #require(packets.dropFirst().first)
        let lostSequence = lost.packet.header.sequenceNumber
        let nack = try receiver.protectFeedback([.genericNACK(.init(senderSSRC: 9, mediaSSRC: 1000,
            items: NACKItem.items(forLost: [lostSequence, lostSequence &+ 5000])))])
        let count = rig.transport.sent.count
        let outcome = try rig.publisher.handleIncoming(nack)
        #expect(outcome.nacked == 2 && outcome.retransmitted == 1 && outcome.missing == 1)
        #expect(rig.transport.sent.count == count + 1)
        #expect(rig.transport.sent.last?.bytes == lost.datagram)
        #expect(rig.transport.sent.last?.ssrc == 1000)
        #expect(rig.publisher.videoSenders[0].retransmissions == 1)
    }

    @Test func senderReportAndCNAMEGoOutPerSSRCOnTheInterval() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        #expect(rig.publisher.reportsSent == 2)  // first report right after the first media
        try rig.sendFrames(10)  // 330 ms: nothing new due
        #expect(rig.publisher.reportsSent == 2)
        rig.clock.advance(milliseconds: 1000)
        let start = rig.transport.sent.count
        let wall = rig.clock.wall
        try rig.sendFrames(1)
        #expect(rig.publisher.reportsSent == 4)
        var seen: Set<UInt32> = []
        for datagram in rig.transport.sent[start...] {
            let (isRTCP, plain) = try receiver.unprotect(datagram.bytes)
            guard isRTCP else { continue }
            let compound = try RTCPCompoundPacket(parsing: plain)
            guard compound.packets.count == 2, case let .senderReport(sr) = compound.packets[0],
                  case let .sourceDescription(sdes) = compound.packets[1] else {
                Issue.record("unexpected compound \(compound)")
                continue
            }
            #expect(datagram.ssrc == sr.ssrc)
            #expect(sdes.cname(for: sr.ssrc) == "test-cname")
            let sender = try #require(rig.publisher.videoSenders.first { $0.ssrc == sr.ssrc })
            #expect(sr.packetCount == sender.packetCount)
            #expect(sr.octetCount == sender.octetCount)
            #expect(sr.ntpTimestamp == NTPTime.timestamp(microsecondsSinceEpoch: Int64(wall) + MediaClock.ntpUnixOffsetMicroseconds))
            #expect(sr.rtpTimestamp == sender.lastRTPTimestamp)
            seen.insert(sr.ssrc)
        }
        #expect(seen == [1000, 1001])
    }

    @Test func goodbyeEndsEachStreamWithReportCNAMEAndBYE() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        let start = rig.transport.sent.count
        try rig.publisher.sendGoodbye(reason: "done")
        let sent = Array(rig.transport.sent[start...])
        #expect(sent.map(\.ssrc) == [1000, 1001])
        for datagram in sent {
            let (isRTCP, plain) = try receiver.unprotect(datagram.bytes)
            #expect(isRTCP)
            let packets = try RTCPCompoundPacket(parsing: plain).packets
            #expect(packets.count == 3)
            #expect(packets.last == .goodbye(Goodbye(ssrcs: [datagram.ssrc], reason: "done")))
        }
    }

    @Test func tamperedOrGarbageFeedbackIsATypedError() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(1)
        var pli = try receiver.protectFeedback([.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1000))])
        pli[9] ^= 0x01
        #expect(throws: PublisherError.srtp(.authenticationFailed)) { try rig.publisher.handleIncoming(pli) }
        #expect(throws: PublisherError.self) { try rig.publisher.handleIncoming([]) }
        #expect(throws: PublisherError.self) { try rig.publisher.handleIncoming([0x80, 200, 0, 1]) }
        #expect(try rig.publisher.handleIncoming([0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]).ignoredRTP)
        // pollIncoming counts bad datagrams instead of throwing.
        rig.transport.inbox = [.init(peer: PublisherRig.peer, bytes: [0x80, 201, 0, 7, 1, 2])]
        _ = try rig.publisher.pollIncoming(timeoutMilliseconds: 0)
        #expect(rig.publisher.feedbackErrors == 1)
        #expect(try rig.publisher.pollIncoming(timeoutMilliseconds: 0) == nil)
    }
}

@Suite struct PublisherAudioTests {
    @Test func opusPacketsCarryTheMeasuredAudioLevel() throws {
        let rig = try PublisherRig(audio: true, video: false)
        let receiver = try TestReceiver()
        let signal = TestSignal(frequencyHz: 1000, amplitude: 0.1)
        for index in 0..<5 {
            try rig.publisher.send(audio: signal.frame(index))
            rig.clock.advance(milliseconds: 20)
        }
        let packets = try sentRTP(rig.transport, receiver: receiver).map(\.packet)
        #expect(packets.count == 5)
        let expected = AudioLevel(measuring: signal.frame(0).samples)
        for (index, packet) in packets.enumerated() {
            #expect(packet.header.ssrc == 2000 && packet.header.payloadType == 111)
            let extensions = try #require(packet.header.extensions)
            #expect(try extensions.value(AudioLevel.self, map: .defaults) == expected)
            #expect(try extensions.value(MediaIdentifier.self, map: .defaults)?.value == "1")
            #expect(try extensions.value(RTPStreamID.self, map: .defaults) == nil)
            #expect(try OpusDepacketizer.depacketize(packet.payload).info.samples == 960)
            #expect(packet.header.marker == (index == 0))
            if index > 0 { #expect(packet.header.timestamp == packets[index - 1].header.timestamp &+ 960) }
        }
        #expect(expected.level == 23 && expected.voiceActivity)  // 0.1 full-scale sine: -23 dBov
    }

    @Test func dtxLeavesSilenceUnsentButKeepsTheClock() throws {
        let rig = try PublisherRig(audio: true, video: false, dtx: true)
        let receiver = try TestReceiver()
        let tone = TestSignal(frequencyHz: 440, amplitude: 0.3)
        for index in 0..<3 { try rig.publisher.send(audio: tone.frame(index)) }
        for _ in 0..<40 { try rig.publisher.send(audio: .silence(channels: .mono)) }
        try rig.publisher.send(audio: tone.frame(50))
        #expect(rig.publisher.audioFramesSuppressed > 0)
        let packets = try sentRTP(rig.transport, receiver: receiver).map(\.packet)
        let last = try #require(packets.last)
        #expect(last.header.marker)
        #expect(last.header.timestamp == packets[0].header.timestamp &+ UInt32(43 * 960))
    }
}

@Suite struct PublisherErrorTests {
    @Test func badKeysAreTypedErrors() {
        #expect(throws: SRTPError.badCryptoLine(.malformed("does not start with 'crypto:'"))) {
            try SRTPKeyingMaterial(cryptoLine: "a=crypt:1 AES_CM_128_HMAC_SHA1_80 inline:AAAA")
        }
        #expect(throws: SRTPError.badCryptoLine(.unknownSuite("AES_CM_999"))) {
            try SRTPKeyingMaterial(cryptoLine: "a=crypto:1 AES_CM_999 inline:WVNfX19TRUNSRVRfX19LRVlfX19TQUxUX19fMTIzNA==")
        }
        #expect(throws: SRTPError.self) { try SRTPKeyingMaterial(keyAndSalt: [UInt8](repeating: 1, count: 29)) }
    }

    @Test func unreachableDestinationIsATypedError() throws {
        let broadcast = NetworkEndpoint(address: 0xFFFF_FFFF, port: 9)
        var random = SplitMix64(seed: 1)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: 1), security: .srtp(local: try testMaterial())),
            transport: try UDPSocket(sendingToward: broadcast), routing: try PublisherRouting(destination: broadcast),
            clock: ManualClock().mediaClock, using: &random)
        #expect {
            try publisher.send(audio: TestSignal().frame(0))
        } throws: { error in
            guard case .network(.unreachable) = error as? PublisherError else { return false }
            return true
        }
    }

    @Test func portsOutOfRangeAndBadAddressesAreTypedErrors() {
        #expect(throws: NetworkError.portOutOfRange(70000)) { try NetworkEndpoint.parseList("127.0.0.1:5000,70000") }
        #expect(throws: NetworkError.portOutOfRange(0)) { try NetworkEndpoint.parseList("127.0.0.1:0") }
        #expect(throws: NetworkError.invalidAddress("nowhere:5000")) { try NetworkEndpoint.parseList("nowhere:5000") }
    }

    @Test func impossibleConfigurationsAreTypedErrors() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        var random = SplitMix64(seed: 1)
        let transport = MemoryTransport()
        let routing = try PublisherRouting(destination: PublisherRig.peer)
        func make(_ configuration: PublisherConfiguration) throws(PublisherError) {
            _ = try Publisher(configuration: configuration, transport: transport, routing: routing, using: &random)
        }
        #expect(throws: PublisherError.self) { try make(PublisherConfiguration(security: .insecure)) }
        #expect(throws: PublisherError.self) {
            try make(PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, ssrcs: [1]), security: .insecure))
        }
        #expect(throws: PublisherError.self) {
            try make(PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, ssrcs: [1, 1]), security: .insecure))
        }
        #expect(throws: PublisherError.self) {
            try make(PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 1, payloadType: 200),
                                            security: .insecure))
        }
        #expect(throws: PublisherError.self) {
            try make(PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 1),
                                            audio: AudioTrackConfiguration(ssrc: 2), security: .insecure))
        }
        var tooBig = VideoTrackConfiguration(plan: plan, firstSSRC: 1)
        tooBig.payloadBudget = 1480
        #expect(throws: PublisherError.self) { try make(PublisherConfiguration(video: tooBig, security: .insecure)) }
        let audioOnly = try Publisher(configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: 1), security: .insecure),
                                      transport: transport, routing: routing, using: &random)
        #expect(throws: PublisherError.trackNotConfigured("video")) {
            try audioOnly.send(video: VideoFrame(width: 64, height: 64))
        }
    }
}

@Suite struct PublisherUDPFeedbackTests {
    @Test func feedbackArrivingOnTheSendingSocketIsPolledAndAnswered() throws {
        let receiverSocket = try UDPSocket()
        var random = SplitMix64(seed: 3)
        let clock = ManualClock()
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: try LayerPlan(width: 320, height: 180),
                                                                                 firstSSRC: 77),
                                                  security: .srtp(local: try testMaterial())),
            transport: try UDPSocket(sendingToward: receiverSocket.localEndpoint),
            routing: try PublisherRouting(destination: receiverSocket.localEndpoint), clock: clock.mediaClock, using: &random)
        let source = try VideoSource(testSceneWidth: 320, height: 180)
        try publisher.send(video: try #require(try source.nextFrame()))
        #expect(try publisher.pollIncoming(timeoutMilliseconds: 0) == nil)
        // The receiver learns our address from what arrives, and sends a PLI + NACK back to it.
        var buffer = [UInt8](repeating: 0, count: 2048)
        let first = try #require(try buffer.withUnsafeMutableBytes { try receiverSocket.receive(into: $0, timeoutMilliseconds: 1000) })
        let feedback = try TestReceiver().protectFeedback([
            .pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 77)),
            .genericNACK(.init(senderSSRC: 1, mediaSSRC: 77, items: [NACKItem(packetID: publisher.videoSenders[0].nextSequenceNumber &- 1)])),
        ])
        try receiverSocket.send(feedback, to: first.from.isUnspecified ? .loopback(port: first.from.port) : first.from)
        let outcome = try #require(try publisher.pollIncoming(timeoutMilliseconds: 1000))
        #expect(outcome.keyFramesRequested == 1)
        #expect(outcome.retransmitted == 1)
        #expect(publisher.feedbackErrors == 0)
    }
}
