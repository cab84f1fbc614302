import MediaCodecs
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// The Subscriber fed in memory (`handle(datagram:from:)`, RTCP to `rtcpSink`), in plaintext mode.
@Suite struct SubscriberKeyFrameRecoveryTests {
    final class Harness {
        let clock = ManualClock()
        let subscriber: Subscriber
        let encoder: SimulcastEncoder
        let source: VideoSource
        var packetizer = VP8Packetizer(initialPictureID: 5, initialTL0PicIdx: 0)
        var sequence: UInt16 = 1000
        var plis: [Int64] = []
        var nackedSequenceNumbers: [UInt16] = []
        var decodedTimestamps: [UInt32] = []
        var keyFramesDecoded = 0
        /// Clock time of every decoded key frame.
        var keyFrameDecodeTimes: [Int64] = []
        /// Whether a PLI makes the encoder produce a key frame at the next frame.
        var answerPLI = true

        init() throws {
            let plan = try LayerPlan(width: 320, height: 180)
            encoder = try SimulcastEncoder(plan: plan, frameRate: 30)
            source = try VideoSource(testSceneWidth: 320, height: 180)
            subscriber = try Subscriber(configuration: SubscriberConfiguration(localSSRC: 77, security: .insecurePlaintext),
                                        transport: nil, clock: clock.mediaClock)
            subscriber.rtcpSink = { [unowned self] datagram in
                guard let compound = try? RTCPCompoundPacket(parsing: datagram) else { return }
                for packet in compound.packets {
                    switch packet {
                    case .pictureLossIndication: plis.append(clock.now)
                    case let .genericNACK(nack): nackedSequenceNumbers.append(contentsOf: nack.lostSequenceNumbers)
                    default: break
                    }
                }
            }
            subscriber.onVideoFrame = { [unowned self] frame in
                decodedTimestamps.append(frame.rtpTimestamp)
                if frame.keyFrame {
                    keyFramesDecoded += 1
                    keyFrameDecodeTimes.append(clock.now)
                }
            }
        }

        /// Encodes and delivers frame `index` (unless `drop`), then runs the timers for 33 ms.
        /// Returns the encoded frame's temporal id.
        @discardableResult
        func frame(_ index: Int, drop: Bool = false) throws -> UInt8 {
            clock.now = Int64(index) * 33_333
            if answerPLI && !plis.isEmpty && keyFramesDecoded < 2 { encoder.requestKeyFrame() }
            guard let picture = try source.nextFrame() else { return 0 }
            var temporalId: UInt8 = 0
            for encoded in try encoder.encode(picture) {
                temporalId = encoded.temporalId
                for (payload, isLast) in try packetizer.packetize(encoded) {
                    let header = RTPHeader(marker: isLast, payloadType: 96, sequenceNumber: sequence,
                                           timestamp: encoded.rtpTimestamp, ssrc: 0xBEEF)
                    sequence &+= 1
                    if !drop { subscriber.handle(datagram: try RTPPacket(header: header, payload: payload).serialized(), from: nil) }
                }
            }
            for step in 0..<3 {
                clock.now = Int64(index) * 33_333 + Int64(step) * 11_111
                subscriber.service()
            }
            return temporalId
        }
    }

    @Test func lostBaseLayerFrameLeadsToDroppedFramesAThrottledPLIAndRecoveryAtTheKeyFrame() throws {
        let harness = try Harness()
        for index in 0..<4 { try harness.frame(index) }
        let lostTemporalId = try harness.frame(4, drop: true)  // L1T3: frame 4 is a TL0 frame
        #expect(lostTemporalId == 0)
        for index in 5..<45 { try harness.frame(index) }
        let stats = harness.subscriber.statistics.video
        #expect(!harness.nackedSequenceNumbers.isEmpty)   // it asked, nobody answered
        #expect(stats.packetsGivenUp > 0)
        #expect(stats.framesDropped > 0)
        #expect(stats.decoderErrors == 0)
        #expect(!harness.plis.isEmpty)
        // Rate limit: PLIs at least 300 ms apart.
        for (earlier, later) in zip(harness.plis, harness.plis.dropFirst()) { #expect(later - earlier >= 300_000) }
        #expect(harness.keyFramesDecoded == 2)  // the first frame and the requested one
        #expect(stats.framesDecoded + stats.framesDropped == 44)  // 45 frames, one lost entirely
        #expect(!harness.subscriber.video.isWaitingForKeyFrame)
    }

    @Test func keyFrameArrivingWhileTheDecoderWaitsFlushesOlderGapsAndDecodesAtOnce() throws {
        let harness = try Harness()
        harness.answerPLI = false
        for index in 0..<4 { try harness.frame(index) }
        try harness.frame(4, drop: true)            // TL0 lost: decoder will wait for a key frame
        for index in 5..<12 { try harness.frame(index) }
        #expect(harness.subscriber.video.isWaitingForKeyFrame)
        try harness.frame(12, drop: true)           // a new gap, still pending when the key frame comes
        harness.encoder.requestKeyFrame()
        try harness.frame(13)
        let stats = harness.subscriber.statistics.video
        #expect(stats.keyFrameFlushes == 1)
        #expect(harness.keyFramesDecoded == 2)
        // Decoded on arrival, not after the jitter buffer's 150 ms wait for frame 12.
        let decodedAt = try #require(harness.keyFrameDecodeTimes.last)
        let arrivedAt: Int64 = 13 * 33_333
        #expect(decodedAt == arrivedAt, "key frames decoded at \(harness.keyFrameDecodeTimes)")
        #expect(!harness.subscriber.video.isWaitingForKeyFrame)
    }

    @Test func noPLIWhileEveryFrameArrives() throws {
        let harness = try Harness()
        for index in 0..<20 { try harness.frame(index) }
        #expect(harness.plis.isEmpty)
        #expect(harness.nackedSequenceNumbers.isEmpty)
        #expect(harness.decodedTimestamps.count == 20)
    }

    @Test func garbageDatagramsAreCountedNeverTrapped() throws {
        let harness = try Harness()
        try harness.frame(0)
        let before = harness.subscriber.statistics.datagramsReceived
        var random = SplitMix64(seed: 99)
        for length in 0..<400 {
            var bytes = (0..<(length % 90)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if length % 3 == 0, bytes.count >= 2 { bytes[0] = 0x80; bytes[1] = 96 }      // RTP-looking, VP8 PT
            if length % 3 == 1, bytes.count >= 2 { bytes[0] = 0x80; bytes[1] = 200 }     // RTCP-looking
            harness.subscriber.handle(datagram: bytes, from: nil)
        }
        harness.subscriber.handle(datagram: [UInt8](repeating: 0x80, count: 5000), from: nil)
        harness.subscriber.service()
        let stats = harness.subscriber.statistics
        #expect(stats.datagramsReceived - before == 401)
        #expect(stats.malformedDatagrams + stats.video.malformedPackets + stats.unknownPayloadTypePackets > 0)
        #expect(stats.video.decoderErrors == 0)
    }
}
