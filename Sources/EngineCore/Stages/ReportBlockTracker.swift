import RTPWire
import SessionCore

/// A reception report block about one of our streams (RFC 3550 §6.4.1), as it arrived, with
/// the round-trip time its LSR/DLSR give (`ReceiveStatistics.roundTripMicroseconds`).
public struct ReceivedReportBlock: Sendable, Equatable {
    /// The block as received.
    public var block: ReportBlock
    /// When it was handled, on the receiving endpoint's monotonic clock (microseconds).
    public var arrivalMonotonicMicroseconds: Int64
    /// A − LSR − DLSR with A from the endpoint's wall clock; nil without an LSR (no SR seen by
    /// the far end yet) or for a negative result.
    public var roundTripMicroseconds: Int64?
}

/// The receiver-report stage of a sending endpoint (RFC 3550 §6.4.1 report blocks, RTT as in
/// §6.4.1 and A.8): keeps the latest block about each stream it sends and the round-trip time
/// the blocks give, for the NACK responder (retransmission budget) and the send-side estimator.
///
/// One entry per stream reported on, reserved at init for `streams`; nothing is allocated per block.
struct ReportBlockTracker {
    /// What estimators assume before any report gave a round-trip time (libwebrtc's default).
    static let assumedRoundTripMilliseconds = 100.0

    /// The latest block about each stream.
    private(set) var latest: [UInt32: ReceivedReportBlock] = [:]
    /// The last round-trip time any block gave (a block without LSR leaves it as it was).
    private(set) var lastRoundTripMicroseconds: Int64?

    init(streams: Int) {
        latest.reserveCapacity(streams)
    }

    /// Takes one block about stream `block.ssrc` that arrived at `arrivalCompactNTP` (wall clock,
    /// compact NTP) and `nowMicroseconds` (monotonic).
    @discardableResult
    mutating func receive(_ block: ReportBlock, arrivalCompactNTP: UInt32, nowMicroseconds: Int64) -> ReceivedReportBlock {
        let received = ReceivedReportBlock(
            block: block, arrivalMonotonicMicroseconds: nowMicroseconds,
            roundTripMicroseconds: ReceiveStatistics.roundTripMicroseconds(reportBlock: block, arrivalCompactNTP: arrivalCompactNTP))
        latest[block.ssrc] = received
        if let roundTrip = received.roundTripMicroseconds { lastRoundTripMicroseconds = roundTrip }
        return received
    }

    /// The round-trip time the latest block about `ssrc` gave, in milliseconds.
    func roundTripMilliseconds(ssrc: UInt32) -> Int64? {
        latest[ssrc]?.roundTripMicroseconds.map { $0 / 1000 }
    }

    /// The longest round-trip time the latest blocks give, in milliseconds, or the assumed one.
    var longestRoundTripMilliseconds: Double {
        var longest: Int64?
        for received in latest.values {
            if let roundTrip = received.roundTripMicroseconds, roundTrip > longest ?? .min { longest = roundTrip }
        }
        return longest.map { Double($0) / 1000 } ?? Self.assumedRoundTripMilliseconds
    }

    /// The last round-trip time in milliseconds, or the assumed one.
    var lastRoundTripMillisecondsOrAssumed: Double {
        lastRoundTripMicroseconds.map { Double($0) / 1000 } ?? Self.assumedRoundTripMilliseconds
    }
}
