import SessionCore

/// When a forwarding node next needs `service()` though nothing arrived: the earliest deadline
/// of its stages, read from the stages themselves (no fixed grain; issue 27 item 1).
extension ForwardingNode {
    /// The earliest of: every subscriber's link release, bitrate window, sender report and
    /// downlink probe step (`ForwardedDownstream.nextDeadline`); the transport-wide feedback due
    /// to the publisher (`TransportFeedbackStage`); each layer's next upstream NACK retry
    /// (`NACKRequester`, RFC 4585 §6.2.1) unless the publisher's path is a reliable stream; and
    /// a deferred upstream key-frame request (`KeyFrameRequestGate`). Monotonic µs on the node's
    /// clock, `Int64.max` when nothing is due (then only arriving datagrams need it); a deadline
    /// already past comes back as is. Allocates nothing.
    public func nextDeadline() -> Int64 {
        let nowMicroseconds = clock.monotonicMicroseconds()
        let now = nowMicroseconds / 1000
        var earliest = Int64.max
        func consider(milliseconds due: Int64?) {
            guard let due else { return }
            earliest = min(earliest, due == .min ? nowMicroseconds : due.multipliedReportingOverflow(by: 1000).partialValue)
        }
        for downstream in orderedDownstreams { consider(milliseconds: downstream.nextDeadline(nowMilliseconds: now)) }
        if let feedback = transportFeedback.nextDeadline { earliest = min(earliest, feedback == .min ? nowMicroseconds : feedback) }
        if !(publisherEndpoint.map { transport.isReliableStream(to: $0) } ?? false) {
            for nack in upstreamNACK { consider(milliseconds: nack.nextDeadline(roundTripMilliseconds: nil)) }
        }
        consider(milliseconds: upstreamKeyFrameGate.nextDeferredDeadline)
        return earliest
    }
}
