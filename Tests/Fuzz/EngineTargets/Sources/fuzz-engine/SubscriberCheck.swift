import EngineCore
import SessionCore
import RTPWire
import SRTP

/// `Subscriber.handle(datagram:from:)` and `service()` on datagram scripts (see `DatagramScript`):
/// media, sender reports and junk from several sources into a subscriber without a socket, its
/// RTCP caught by `rtcpSink`.
///
/// Variant bit 0: SRTP/SRTCP (else plain); bit 1: SDES CNAME in its reports; bit 2: reports every
/// 100 ms instead of 500 ms. Records: source 0 is "unknown" (nil), 1–7 loopback addresses;
/// `protect` uses the sender's SRTP keys; an action runs `service()` twice 1 ms apart.
///
/// Invariants: no trap; every datagram is counted once; bytes of RTCP sent stay within `OutputBudget`.
enum SubscriberCheck {
    static let localSSRC: UInt32 = 0x0200_0001
    static let senderKeys: UInt8 = 4
    static let subscriberKeys: UInt8 = 5
    /// Sources 1–7 (nothing is ever sent to them: RTCP goes to the sink).
    static let sources: [NetworkEndpoint?] = [nil] + (1...7).map { NetworkEndpoint.loopback(port: UInt16(40_100 + $0)) }

    static func configuration(variant: UInt8) -> SubscriberConfiguration {
        SubscriberConfiguration(
            localSSRC: localSSRC, cname: variant & 2 != 0 ? "fuzz" : nil,
            security: variant & 1 != 0
                ? .srtp(receiveKeys: FuzzKeys.material(senderKeys), sendKeys: FuzzKeys.material(subscriberKeys))
                : .insecurePlaintext,
            reportIntervalMilliseconds: variant & 4 != 0 ? 100 : 500)
    }

    static func run(_ bytes: [UInt8]) -> String? {
        let script = DatagramScript(bytes)
        let clock = SimulatedClock()
        let subscriber: Subscriber
        do {
            subscriber = try Subscriber(configuration: configuration(variant: script.variant), transport: nil,
                                        clock: clock.mediaClock)
        } catch {
            return "subscriber setup failed: \(error)"
        }
        var sent = 0
        subscriber.rtcpSink = { sent += $0.count }
        let senderOutbound: SRTPSession? = script.variant & 1 != 0
            ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(senderKeys)) : nil
        var preparer = DatagramPreparer()
        var budget = OutputBudget(inputBytes: bytes.count, clock: clock)
        var handled: Int64 = 0
        for (index, record) in script.records.enumerated() {
            clock.advance(record.advanceMicroseconds)
            if record.isAction {
                subscriber.service()
                clock.advance(1000)
                subscriber.service()
            } else {
                subscriber.handle(datagram: preparer.prepare(record, with: senderOutbound), from: sources[record.source])
                handled += 1
                if record.service { subscriber.service() }
            }
            budget.sentBytes = sent
            if let violation = budget.violation(at: clock, what: "subscriber (record \(index))") { return violation }
        }
        subscriber.service()
        budget.sentBytes = sent
        if let violation = budget.violation(at: clock, what: "subscriber") { return violation }
        let statistics = subscriber.statistics
        guard statistics.datagramsReceived == handled else {
            return "\(handled) datagrams handled, \(statistics.datagramsReceived) counted"
        }
        guard statistics.rtcpBytesSent == Int64(sent) else { return "\(sent) RTCP bytes sent, \(statistics.rtcpBytesSent) counted" }
        return nil
    }
}
