/// The report timing stage (RFC 3550 §6.2 and §6.4): when each stream owes its next report, a
/// sender report (§6.4.1) for a stream we send or a receiver report (§6.4.2) for the streams we
/// receive, one interval after the last one. A stream that never reported is due at once, and so
/// is one whose clock went backwards (the interval is not waited out twice).
///
/// Time and the interval share one unit, any monotonic clock. Memory: one entry per stream,
/// reserved at init for `streams`; nothing is allocated per report.
struct ReportScheduler {
    /// The least time between two reports of one stream.
    let interval: Int64
    private var lastReport: [UInt32: Int64] = [:]
    /// Reports recorded with `reported`.
    private(set) var reportsSent = 0

    init(interval: Int64, streams: Int) {
        self.interval = interval
        lastReport.reserveCapacity(streams)
    }

    /// Whether stream `ssrc` owes a report at `now`.
    func isDue(ssrc: UInt32, now: Int64) -> Bool {
        guard let last = lastReport[ssrc] else { return true }
        return now < last || now &- last >= interval
    }

    /// When stream `ssrc` next owes a report (`Int64.min`: it never reported, due at once);
    /// what an endpoint's next deadline takes from this stage.
    func nextDue(ssrc: UInt32) -> Int64 {
        guard let last = lastReport[ssrc] else { return .min }
        return last &+ interval
    }

    /// Stream `ssrc` reported at `now`.
    mutating func reported(ssrc: UInt32, now: Int64) {
        lastReport[ssrc] = now
        reportsSent += 1
    }
}
