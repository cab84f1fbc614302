import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore

/// One audio call on 127.0.0.1 with real components and a virtual clock:
///
///     Publisher (Opus + RFC 6464, SRTP, SR every 1 s) ─UDP─► NetworkImpairmentRelay ─UDP─► Subscriber
///     Publisher ◄─UDP─ relay (backward impairment) ◄─UDP─ Subscriber (SRTCP RR every 500 ms)
///
/// The loop advances the `ManualClock` 1 ms per step. Before each step it waits (in real time,
/// briefly) until every datagram sent has been read by the next hop — a loopback `sendto` is
/// nearly always readable at once, but a busy machine can defer delivery — so a datagram's
/// one-way delay in virtual time is exactly the impairment's. A `CallQualityReporter` (1 s interval) grades the publisher's uplink from the
/// RRs and the subscriber's downlink from its own statistics.
final class CallQualityLoopback {
    let clock = ManualClock()
    let publisher: Publisher
    let subscriber: Subscriber
    let relay: NetworkImpairmentRelay
    let reporter: CallQualityReporter
    let signal = TestSignal(frequencyHz: 440, amplitude: 0.3)
    private(set) var audioFrames = 0
    private(set) var elapsedMilliseconds: Int64 = 0
    private(set) var publisherDatagramsReceived = 0
    /// Real-time waits for a datagram still in the kernel, and steps where one took over 1 s.
    private(set) var settleWaits = 0
    private(set) var settleTimeouts = 0
    private let subscriberSocket: UDPSocket

    static let audioSSRC: UInt32 = 0xA0D1_0001

    init(impairment: NetworkImpairment.Configuration, seed: UInt64,
         reporter reporterConfiguration: CallQualityReporter.Configuration = .init()) throws {
        let publisherKeys = try TestKeys.material(0x21), subscriberKeys = try TestKeys.material(0x51)
        subscriberSocket = try UDPSocket()
        try subscriberSocket.setReceiveBufferSize(1 << 20)
        let clock = self.clock
        relay = try NetworkImpairmentRelay(receiver: subscriberSocket.localEndpoint, symmetric: impairment,
                                           clock: clock.mediaClock)
        let publisherSocket = try UDPSocket()
        try publisherSocket.setReceiveBufferSize(1 << 20)
        var random = SplitMix64(seed: seed)
        publisher = try Publisher(
            configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: Self.audioSSRC),
                                                  security: .srtp(local: publisherKeys, remote: subscriberKeys),
                                                  cname: "publisher@quality"),
            transport: publisherSocket, routing: try PublisherRouting(destination: relay.senderFacingEndpoint),
            clock: clock.mediaClock, using: &random)
        subscriber = try Subscriber(
            configuration: SubscriberConfiguration(localSSRC: 0x5B5C_0001, cname: "subscriber@quality",
                                                   security: .srtp(receiveKeys: publisherKeys, sendKeys: subscriberKeys)),
            transport: subscriberSocket, clock: clock.mediaClock)
        reporter = CallQualityReporter(configuration: reporterConfiguration, publisher: publisher,
                                       subscribers: [subscriber], clock: clock.mediaClock)
    }

    /// Runs the call for `milliseconds` more (a 20 ms audio frame every 20 ms).
    func run(milliseconds: Int64) throws {
        for _ in 0..<milliseconds {
            if elapsedMilliseconds % 20 == 0 {
                try publisher.send(audio: signal.frame(audioFrames))
                audioFrames += 1
            }
            try relay.service()
            try subscriber.step(timeoutMilliseconds: 0)
            try relay.service()
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil { publisherDatagramsReceived += 1 }
            try settle()
            reporter.serviceIfDue()
            clock.advance(milliseconds: 1)
            elapsedMilliseconds += 1
        }
    }

    /// Every hop has read everything sent to it (counts match), so no datagram lingers in a
    /// socket while virtual time moves on.
    private var inFlight: Bool {
        let statistics = subscriber.statistics
        return publisher.path.datagramsSent != relay.forward.statistics.offered
            || relay.forward.statistics.released - relay.sendFailures != Int(statistics.datagramsReceived)
            || Int(statistics.rtcpPacketsSent) != relay.backward.statistics.offered
            || relay.backward.statistics.released != publisherDatagramsReceived
    }

    private func settle() throws {
        guard inFlight else { return }
        let deadline = monotonicMicroseconds() + 1_000_000
        while inFlight {
            settleWaits += 1
            guard monotonicMicroseconds() < deadline else {
                settleTimeouts += 1
                return
            }
            try relay.service()
            _ = try subscriber.poll(timeoutMilliseconds: 1)
            try relay.service()
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil { publisherDatagramsReceived += 1 }
        }
    }

    /// Loss over the whole call from the latest RR block about the audio stream (RFC 3550 A.3
    /// cumulative lost ÷ packets expected since the stream's first sequence number).
    var uplinkCumulativeLoss: Double? {
        guard let received = publisher.latestReportBlocks[Self.audioSSRC],
              let first = publisher.audioSender?.configuration.initialSequenceNumber else { return nil }
        let expected = Int64(received.block.extendedHighestSequenceNumber) - Int64(first) + 1
        return expected > 0 ? Double(received.block.cumulativeLost) / Double(expected) : nil
    }

    /// Loss over the whole call as the subscriber counted it.
    var downlinkCumulativeLoss: Double? {
        guard let statistics = subscriber.audio.receptionStatistics, statistics.expectedPackets > 0 else { return nil }
        return Double(statistics.cumulativeLost) / Double(statistics.expectedPackets)
    }
}

extension Array where Element == Double {
    var mean: Double { isEmpty ? .nan : reduce(0, +) / Double(count) }
}
