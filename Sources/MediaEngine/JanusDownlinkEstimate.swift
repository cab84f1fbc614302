internal import EngineCore
internal import SessionCore

/// The receive-side estimate of a Janus subscriber connection's whole downlink (issue 28 item 5),
/// for its client-side adaptive subscriptions: one `BandwidthEstimator` (the estimator behind a
/// hosted viewer's REMB: incoming rate over a 1 s window, loss-based AIMD after
/// draft-ietf-rmcat-gcc-02 §6) fed with every byte the connection reads
/// (`BundledStreamDemultiplexer.bytesReceived`) and the RFC 3550 loss (expected − received, §6.4.1)
/// of all its streams together, audio included: they share one link, so one estimate of it, not
/// a sum of per-stream ones, is what the policy budgets.
///
/// It starts at its maximum: without probing, a receiver learns a limit only from loss, so no
/// video is paused before loss shows one; from then on it falls on loss over 10 % and grows by
/// 25 %/s under 2 %. A stream resumed at Janus numbers on from where Janus counted while it was
/// paused, so its sequence gap is not loss: for `resumeGraceMilliseconds` after a resume its
/// loss is not counted. Loop-confined value; time is a parameter.
struct JanusDownlinkEstimate {
    /// How often the loss since the previous report updates the estimate (as a viewer's REMB reports).
    static let reportIntervalMilliseconds: Int64 = 500
    /// How long after a resume a stream's loss is not counted.
    static let resumeGraceMilliseconds: Int64 = 1_000

    private var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 20_000_000))
    private var bytesPrior: Int64?
    /// Each stream's (expected, received) at the previous report, by subscriber mid.
    private var priors: [String: (expected: Int64, received: Int64)] = [:]
    private var graceUntil: [String: Int64] = [:]
    private var lastReport: Int64?
    private var reports = 0

    /// The estimate in bits per second, nil before the first report.
    var bitsPerSecond: Int? { reports > 0 ? Int(clamping: estimator.estimateBitsPerSecond) : nil }

    /// The stream on `mid` was resumed at Janus: its coming sequence gap is not loss.
    mutating func resumed(mid: String, nowMilliseconds now: Int64) {
        graceUntil[mid] = now + Self.resumeGraceMilliseconds
    }

    /// RFC 3550 A.3's counts of one received stream: expected (received + cumulative lost) and received packets.
    struct StreamCounts: Equatable {
        var mid: String
        var expected: Int64
        var received: Int64
    }

    /// Takes what the connection received so far (`bytesReceived`: the demultiplexer's count) and,
    /// every `reportIntervalMilliseconds`, the loss of `streams` since the previous report.
    mutating func observe(bytesReceived: Int64, streams: [StreamCounts], nowMilliseconds now: Int64) {
        // A new connection counts from zero again.
        if let prior = bytesPrior, bytesReceived > prior {
            estimator.packetReceived(bytes: Int(clamping: bytesReceived - prior), nowMilliseconds: now)
        }
        bytesPrior = bytesReceived
        if let last = lastReport, now - last < Self.reportIntervalMilliseconds, now >= last { return }
        let first = lastReport == nil
        lastReport = now
        var expected: Int64 = 0, received: Int64 = 0
        var next: [String: (expected: Int64, received: Int64)] = [:]
        for counts in streams {
            next[counts.mid] = (counts.expected, counts.received)
            // A stream new since the previous report counts from this one.
            guard let prior = priors[counts.mid] else { continue }
            let arrived = max(0, counts.received - prior.received)
            received += arrived
            if let until = graceUntil[counts.mid], now < until {
                expected += arrived
            } else {
                expected += max(arrived, counts.expected - prior.expected)
            }
        }
        priors = next
        graceUntil = graceUntil.filter { $0.value > now }
        guard !first else { return }
        let loss = expected > 0 ? Double(expected - received) / Double(expected) : 0
        estimator.update(lossFraction: loss, nowMilliseconds: now)
        reports += 1
    }

    /// The counts of a stream the connection receives (its video or its audio receiver's).
    static func counts(of stream: JanusReceivedStream) -> StreamCounts {
        let statistics = stream.subscriber.statistics
        if stream.kind == .microphone {
            return StreamCounts(mid: stream.mid, expected: statistics.audio.packetsReceived + max(0, statistics.audio.packetsLost),
                                received: statistics.audio.packetsReceived)
        }
        return StreamCounts(mid: stream.mid, expected: statistics.video.packetsReceived + max(0, statistics.video.packetsLost),
                            received: statistics.video.packetsReceived)
    }
}
