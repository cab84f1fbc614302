import MediaCodecs
import RTPWire
import SRTP
import Simulcast
import Testing
@testable import EngineCore
import SessionCore

/// End-to-end receive path with real components: SimulcastEncoder → VP8Packetizer → RTP →
/// SRTP → UDP on 127.0.0.1 through a lossy, reordering impairment → Subscriber (SRTP → jitter
/// buffer → assembler → VP8Decoder), with the sender answering the subscriber's NACKs and PLIs.
/// The clock is advanced by hand (11 ms steps, three per 30 fps frame).
@Suite(.serialized) struct SubscriberLoopbackTests {
    struct VideoRun {
        var framesSent = 0
        var framesDecoded = 0
        var decodedSizes: Set<String> = []
        var stats: SubscriberStatistics
        var sender: ImpairedSender
        var roundTripMicroseconds: Int64?
    }

    static let videoSSRC: UInt32 = 0x1122_3344

    func runVideo(width: Int, height: Int, frames: Int, loss: Double, reorder: Double, seed: UInt64) throws -> VideoRun {
        let plan = try LayerPlan(width: width, height: height)
        let top = plan.layers.count - 1
        let encoder = try SimulcastEncoder(plan: plan, frameRate: 30, rtpTimestampStart: 0xFFFF_0000)
        let source = try VideoSource(testSceneWidth: width, height: height)
        // A small payload budget: several packets per frame, so losses hit the middle of frames too.
        var packetizer = VP8Packetizer(payloadBudget: 400, initialPictureID: 32_760, initialTL0PicIdx: 250)

        let clock = ManualClock()
        let subscriberKeys = try TestKeys.material(0x40), senderKeys = try TestKeys.material(0x10)
        let socket = try UDPSocket()
        try socket.setReceiveBufferSize(1 << 20)
        let sender = try ImpairedSender(to: socket.localEndpoint, ssrc: Self.videoSSRC, seed: seed, loss: loss,
                                        reorder: reorder, sendKeys: senderKeys, receiveKeys: subscriberKeys)
        let configuration = SubscriberConfiguration(
            localSSRC: 0xAAAA_0001, cname: "subscriber@test",
            security: .srtp(receiveKeys: senderKeys, sendKeys: subscriberKeys),
            senderRTCPEndpoint: sender.socket.localEndpoint)
        let subscriber = try Subscriber(configuration: configuration, transport: socket, clock: clock.mediaClock)
        var decoded = 0
        var sizes: Set<String> = []
        subscriber.onVideoFrame = { frame in
            decoded += 1
            sizes.insert("\(frame.width)x\(frame.height)")
        }

        var sequenceNumber: UInt16 = 65_500  // crosses the 16-bit wrap
        var framesSent = 0
        let ntpEpochOffset: Int64 = 3_900_000_000 * 1_000_000  // any fixed wall-clock origin
        for index in 0..<frames {
            let frameStart = Int64(index) * 33_333
            clock.now = frameStart
            if index == 0 || index == frames / 2 {
                // An SR, so the RR carries LSR/DLSR and the sender can compute its RTT.
                let ntp = NTPTime.timestamp(microsecondsSinceEpoch: ntpEpochOffset + clock.now)
                try sender.send(rtcp: RTCPCompoundPacket(packets: [.senderReport(SenderReport(
                    ssrc: Self.videoSSRC, ntpTimestamp: ntp, rtpTimestamp: 0, packetCount: 0, octetCount: 0))]))
            }
            if sender.keyFrameRequested {
                encoder.requestKeyFrame()
                sender.keyFrameRequested = false
            }
            guard let picture = try source.nextFrame() else { break }
            for encoded in try encoder.encode(picture) where encoded.spatialIndex == top {
                framesSent += 1
                for (payload, isLast) in try packetizer.packetize(encoded) {
                    let header = RTPHeader(marker: isLast, payloadType: 96, sequenceNumber: sequenceNumber,
                                           timestamp: encoded.rtpTimestamp, ssrc: Self.videoSSRC)
                    try sender.send(rtp: try RTPPacket(header: header, payload: payload).serialized(),
                                    sequenceNumber: sequenceNumber)
                    sequenceNumber &+= 1
                }
            }
            try sender.flushHeld()
            for step in 0..<3 {
                clock.now = frameStart + Int64(step) * 11_111
                try subscriber.step(timeoutMilliseconds: 0)
                try sender.serviceRTCP(nowMicroseconds: clock.now)
            }
        }
        // Drain: no new media for 400 ms.
        for step in 1...36 {
            clock.now = Int64(frames) * 33_333 + Int64(step) * 11_111
            try subscriber.step(timeoutMilliseconds: 0)
            try sender.serviceRTCP(nowMicroseconds: clock.now)
        }
        var rtt: Int64?
        if let report = sender.reportArrivals.last(where: { $0.block.lastSenderReport != 0 }) {
            // The SR's NTP time and the subscriber's clock share one origin (one process, one clock).
            let arrival = NTPTime.compact(NTPTime.timestamp(microsecondsSinceEpoch: ntpEpochOffset + report.arrivalMicroseconds))
            rtt = ReceiveStatistics.roundTripMicroseconds(reportBlock: report.block, arrivalCompactNTP: arrival)
        }
        return VideoRun(framesSent: framesSent, framesDecoded: decoded, decodedSizes: sizes,
                        stats: subscriber.statistics, sender: sender, roundTripMicroseconds: rtt)
    }

    @Test(arguments: [(320, 180), (640, 360)])
    func everyFrameDecodesThroughLossAndReorderingThanksToNACK(width: Int, height: Int) throws {
        let run = try runVideo(width: width, height: height, frames: 60, loss: 0.05, reorder: 0.05, seed: 0x5EED)
        let video = run.stats.video
        print("loopback \(width)x\(height): sent \(run.sender.packetsSent) packets, dropped \(run.sender.droppedSequenceNumbers.count) (+\(run.sender.droppedResends) resends), reordered \(run.sender.reordered), NACK requests \(video.nackRequests) in \(video.nackPacketsSent) NACKs, resends \(run.sender.resends), recovered \(video.packetsRecovered), given up \(video.packetsGivenUp), PLIs \(video.keyFrameRequests), decoded \(video.framesDecoded)/\(run.framesSent), longest freeze \(video.longestFreezeMilliseconds) ms, jitter \(video.jitterMilliseconds) ms, REMB \(run.sender.rembs.last ?? 0) bps, RTCP sent \(run.stats.rtcpPacketsSent), rtt \(run.roundTripMicroseconds.map(String.init) ?? "nil") us")
        #expect(run.framesSent == 60)
        #expect(run.framesDecoded == run.framesSent)
        #expect(run.decodedSizes == ["\(width)x\(height)"])
        #expect(video.decoderErrors == 0)
        #expect(video.framesDropped == 0)
        #expect(video.longestFreezeMilliseconds <= 1000)
        #expect(run.stats.srtpFailures == 0)
        #expect(!run.sender.droppedSequenceNumbers.isEmpty)
        #expect(video.nackPacketsSent > 0)
        #expect(run.sender.nacksReceived > 0)
        #expect(video.packetsRecovered >= Int64(run.sender.droppedSequenceNumbers.count))
        #expect(video.packetsGivenUp == 0)
        #expect(video.packetsLost <= 0)
        #expect(!run.sender.rembs.isEmpty)
        #expect(run.sender.rtcpFailures == 0)
    }

    @Test func receiverReportsCarryLSRSoTheSenderGetsARoundTripTime() throws {
        let run = try runVideo(width: 320, height: 180, frames: 30, loss: 0, reorder: 0, seed: 1)
        #expect(run.sender.reportBlocks.contains { $0.ssrc == Self.videoSSRC && $0.lastSenderReport != 0 })
        let rtt = try #require(run.roundTripMicroseconds)
        #expect(rtt >= 0 && rtt < 5_000)  // one manual clock: only the 1/65536 s rounding remains
        #expect(run.framesDecoded == 30)
        #expect(run.stats.video.nackRequests == 0)
    }

    @Test func opusLoopbackConcealsAndRecoversLossWithoutErrors() throws {
        let clock = ManualClock()
        let subscriberKeys = try TestKeys.material(0x41), senderKeys = try TestKeys.material(0x11)
        let socket = try UDPSocket()
        let sender = try ImpairedSender(to: socket.localEndpoint, ssrc: 0x0A0D_10, seed: 0xA0D10, loss: 0.08,
                                        reorder: 0, sendKeys: senderKeys, receiveKeys: subscriberKeys)
        sender.burstLength = 1...3
        let configuration = SubscriberConfiguration(
            localSSRC: 0xAAAA_0002, security: .srtp(receiveKeys: senderKeys, sendKeys: subscriberKeys),
            senderRTCPEndpoint: sender.socket.localEndpoint)
        let subscriber = try Subscriber(configuration: configuration, transport: socket, clock: clock.mediaClock)
        var samplesOut = 0
        subscriber.onAudio = { frame, _ in samplesOut += frame.samples.count }

        let encoder = try OpusEncoder(configuration: .init(inbandFEC: true, expectedPacketLossPercent: 10))
        let signal = TestSignal()
        var packetizer = OpusPacketizer(initialTimestamp: 1234)
        var output = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        var sequence: UInt16 = 65_000
        let packets = 150
        for index in 0..<packets {
            clock.now = Int64(index) * 20_000
            let length = try encoder.encode(signal.frame(index), into: &output)
            let (payload, timestamp, _) = try packetizer.packetize(output[0..<length])
            let header = RTPHeader(marker: index == 0, payloadType: 111, sequenceNumber: sequence,
                                   timestamp: timestamp, ssrc: 0x0A0D_10)
            try sender.send(rtp: try RTPPacket(header: header, payload: payload).serialized(), sequenceNumber: sequence)
            sequence &+= 1
            try subscriber.step(timeoutMilliseconds: 0)
        }
        let audio = subscriber.statistics.audio
        print("opus loopback: sent \(packets), dropped \(sender.droppedSequenceNumbers.count), decoded \(audio.framesDecoded), FEC \(audio.framesRecoveredByFEC), concealed \(audio.framesConcealed), errors \(audio.decoderErrors)")
        #expect(!sender.droppedSequenceNumbers.isEmpty)
        #expect(audio.framesConcealed > 0)
        #expect(audio.framesRecoveredByFEC > 0)
        #expect(audio.decoderErrors == 0)
        #expect(audio.malformedPackets == 0)
        #expect(audio.framesDecoded == Int64(packets - sender.droppedSequenceNumbers.count))
        // Every 20 ms slot between the first and last received packet is filled by one of the three.
        let lastReceived = (0..<packets).last { !sender.droppedSequenceNumbers.contains(UInt16(truncatingIfNeeded: 65_000 + $0)) } ?? 0
        let firstReceived = (0..<packets).first { !sender.droppedSequenceNumbers.contains(UInt16(truncatingIfNeeded: 65_000 + $0)) } ?? 0
        #expect(audio.framesDecoded + audio.framesRecoveredByFEC + audio.framesConcealed == Int64(lastReceived - firstReceived + 1))
        #expect(samplesOut == (lastReceived - firstReceived + 1) * AudioFrame.samplesPerChannel20ms)
    }
}
