import MediaCodecs
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// The loopback call on the default monotonic clock, paced at 30 fps in real time (2 s), with
/// the subscriber blocking in `poll` between frames: the way an application drives it.
@Suite struct SubscriberRealTimeTests {
    @Test func realTimeLoopbackDecodesEveryFrameThroughLossWithNACK() throws {
        let plan = try LayerPlan(width: 320, height: 180)
        let encoder = try SimulcastEncoder(plan: plan, frameRate: 30)
        let source = try VideoSource(testSceneWidth: 320, height: 180)
        var packetizer = VP8Packetizer(payloadBudget: 400, initialPictureID: 1, initialTL0PicIdx: 1)
        let subscriberKeys = try TestKeys.material(0x42), senderKeys = try TestKeys.material(0x12)
        let socket = try UDPSocket()
        let sender = try ImpairedSender(to: socket.localEndpoint, ssrc: 0x7777, seed: 0x5EED, loss: 0.05,
                                        reorder: 0.05, sendKeys: senderKeys, receiveKeys: subscriberKeys)
        let subscriber = try Subscriber(
            // 400 ms of patience: this machine is shared, and a scheduling stall must not look like loss.
            configuration: SubscriberConfiguration(localSSRC: 3, security: .srtp(receiveKeys: senderKeys, sendKeys: subscriberKeys),
                                                   senderRTCPEndpoint: sender.socket.localEndpoint,
                                                   video: VideoReceiver.Configuration(localSSRC: 3, jitterBuffer: .init(maxDelayMilliseconds: 400))),
            transport: socket)
        var decoded = 0
        subscriber.onVideoFrame = { _ in decoded += 1 }
        let start = monotonicMicroseconds()
        var sequence: UInt16 = 40_000
        for index in 0..<60 {
            for encoded in try encoder.encode(try #require(try source.nextFrame())) {
                for (payload, isLast) in try packetizer.packetize(encoded) {
                    let header = RTPHeader(marker: isLast, payloadType: 96, sequenceNumber: sequence,
                                           timestamp: encoded.rtpTimestamp, ssrc: 0x7777)
                    try sender.send(rtp: try RTPPacket(header: header, payload: payload).serialized(), sequenceNumber: sequence)
                    sequence &+= 1
                }
            }
            try sender.flushHeld()
            let nextFrame = start + Int64(index + 1) * 33_333
            while monotonicMicroseconds() < nextFrame {
                let wait = Int32(max(1, min(10, (nextFrame - monotonicMicroseconds()) / 1000)))
                try sender.serviceRTCP()
                try subscriber.step(timeoutMilliseconds: wait)
            }
        }
        let drainEnd = monotonicMicroseconds() + 300_000
        while monotonicMicroseconds() < drainEnd {
            try sender.serviceRTCP()
            try subscriber.step(timeoutMilliseconds: 10)
        }
        let video = subscriber.statistics.video
        print("real-time loopback: dropped \(sender.droppedSequenceNumbers.count) of \(sender.packetsSent), NACKed \(video.nackRequests), recovered \(video.packetsRecovered), decoded \(decoded)/60, longest freeze \(video.longestFreezeMilliseconds) ms, jitter \(video.jitterMilliseconds) ms, incoming \(video.incomingBitsPerSecond) bps")
        #expect(decoded == 60)
        #expect(video.decoderErrors == 0)
        #expect(video.longestFreezeMilliseconds <= 1000)
        #expect(video.packetsRecovered >= Int64(sender.droppedSequenceNumbers.count))
        #expect(!sender.droppedSequenceNumbers.isEmpty)
    }
}
