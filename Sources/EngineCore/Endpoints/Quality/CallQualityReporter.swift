import RTPWire
import Simulcast
import SessionCore

/// Connection-quality reports for one client connection (docs/quality-and-speakers.md), wired into the engine:
///
/// - **Uplink** (what this side publishes, as the far end sees it): from the `Publisher`'s latest
///   reception report block per SSRC (RFC 3550 §6.4.1: extended highest sequence number and
///   cumulative lost give the loss over the window, interarrival jitter in the stream's clock
///   rate, LSR/DLSR give the RTT via `ReceiveStatistics.roundTripMicroseconds`) and the
///   publisher's payload octets sent (bitrate).
/// - **Downlink** (what this side receives): from every attached `Subscriber`'s own
///   `ReceiveStatistics` per stream (loss, jitter, octets received). A subscriber cannot measure
///   an RTT by itself (that needs RFC 3611 XR), so the downlink RTT is `downlinkRoundTrip()` if
///   set, otherwise the uplink's (same connection, same path), otherwise 0.
///
/// Every `intervalMicroseconds` on the injected clock (`serviceIfDue()` from the caller's loop,
/// or `report()` to force one) both samples (`CallQualityMeter`) go into a
/// `ConnectionQualityMonitor`: the report is appended to `reports` and passed to `onReport`; a
/// change of the overall level is appended to `changes` and passed to `onQualityChange`. A
/// direction with nothing new in an interval repeats its previous sample (or, if it never had
/// one, mirrors the other direction); with nothing new either way the interval counts as missed
/// (`ConnectionQualityMonitor.recordMissedInterval`: lost after three).
///
/// `connectionQuality()` is nil until the first report and again right after `reconnected()`.
/// Not `Sendable` (it reads a publisher and subscribers); confine it with them.
public final class CallQualityReporter {
    /// Tuning.
    public struct Configuration: Sendable {
        /// Report interval, microseconds (≥ 1 ms).
        public var intervalMicroseconds: Int64
        /// Intervals the loss ratio is measured over (`CallQualityMeter`).
        public var lossWindowIntervals: Int
        /// Level thresholds and hysteresis.
        public var monitor: ConnectionQualityMonitor.Configuration
        /// Most reports and changes kept in `reports` / `changes` (older ones are dropped).
        public var historyLimit: Int

        public init(intervalMicroseconds: Int64 = 1_000_000, lossWindowIntervals: Int = 5,
                    monitor: ConnectionQualityMonitor.Configuration = .init(), historyLimit: Int = 3_600) {
            self.intervalMicroseconds = max(1_000, intervalMicroseconds)
            self.lossWindowIntervals = max(1, lossWindowIntervals)
            self.monitor = monitor
            self.historyLimit = max(1, historyLimit)
        }
    }

    public let configuration: Configuration
    /// The publish side, if this connection publishes.
    public let publisher: Publisher?
    /// The receive side(s): one subscriber per remote stream source.
    public private(set) var subscribers: [Subscriber]
    /// Downlink RTT source (milliseconds) when the application knows one; nil → the uplink's.
    public var downlinkRoundTrip: (() -> Double?)?
    /// Called with every report.
    public var onReport: ((QualityReport) -> Void)?
    /// Called when the overall level changes.
    public var onQualityChange: ((ConnectionQualityChange) -> Void)?
    /// Reports so far (at most `historyLimit`), oldest first.
    public private(set) var reports: [QualityReport] = []
    /// Level changes so far (at most `historyLimit`), oldest first.
    public private(set) var changes: [ConnectionQualityChange] = []
    /// The RTT of the most recent uplink report block that had one, milliseconds.
    public private(set) var uplinkRoundTripMilliseconds: Double?
    /// Intervals with nothing new in either direction.
    public private(set) var missedIntervals = 0

    private let clock: MediaClock
    private var monitor: ConnectionQualityMonitor
    private var uplinkMeter: CallQualityMeter
    private var downlinkMeter: CallQualityMeter
    private var lastUplink: QualitySample?
    private var lastDownlink: QualitySample?
    private var nextReportMicroseconds: Int64?

    /// - Parameter clock: monotonic microseconds (inject the test's clock).
    public init(configuration: Configuration = .init(), publisher: Publisher?, subscribers: [Subscriber],
                clock: MediaClock = .system) {
        self.configuration = configuration
        self.publisher = publisher
        self.subscribers = subscribers
        self.clock = clock
        monitor = ConnectionQualityMonitor(configuration: configuration.monitor)
        uplinkMeter = CallQualityMeter(lossWindowIntervals: configuration.lossWindowIntervals)
        downlinkMeter = CallQualityMeter(lossWindowIntervals: configuration.lossWindowIntervals)
    }

    /// Adds a receive side (a newly subscribed remote participant).
    public func attach(_ subscriber: Subscriber) {
        guard !subscribers.contains(where: { $0 === subscriber }) else { return }
        subscribers.append(subscriber)
    }

    /// Removes a receive side; its streams leave the downlink window at the next report.
    public func detach(_ subscriber: Subscriber) {
        subscribers.removeAll { $0 === subscriber }
    }

    /// The latest report; nil before the first one and right after `reconnected()`.
    public func connectionQuality() -> QualityReport? { monitor.connectionQuality() }

    /// The connection was re-established: forgets levels, windows and samples (the next change
    /// starts from `.unknown`), and restarts the interval timer.
    public func reconnected() {
        monitor.reconnected()
        uplinkMeter.reset()
        downlinkMeter.reset()
        lastUplink = nil
        lastDownlink = nil
        uplinkRoundTripMilliseconds = nil
        nextReportMicroseconds = nil
    }

    /// When `serviceIfDue()` next reports (monotonic µs; `Int64.min`: never serviced yet, so at
    /// once, to take the baseline).
    public var nextReportDue: Int64 { nextReportMicroseconds ?? .min }

    /// Reports if an interval has passed since the last report (the first call only starts the
    /// timer and takes the baseline readings). Returns the update when one was made.
    @discardableResult
    public func serviceIfDue() -> ConnectionQualityUpdate? {
        let now = clock.monotonicMicroseconds()
        guard let due = nextReportMicroseconds else {
            nextReportMicroseconds = now + configuration.intervalMicroseconds
            takeSamples(now: now)  // baseline: the first interval's deltas start here
            return nil
        }
        guard now >= due else { return nil }
        // Keep the cadence; after a long stall, restart it from now instead of catching up.
        nextReportMicroseconds = now - due >= configuration.intervalMicroseconds
            ? now + configuration.intervalMicroseconds : due + configuration.intervalMicroseconds
        return report()
    }

    /// Reports now (whatever the timer says). Nil when nothing new arrived in either direction
    /// and the monitor has nothing to repeat (before the first report).
    @discardableResult
    public func report() -> ConnectionQualityUpdate? {
        let now = clock.monotonicMicroseconds()
        if nextReportMicroseconds == nil { nextReportMicroseconds = now + configuration.intervalMicroseconds }
        let (uplink, downlink) = takeSamples(now: now)
        if let uplink { lastUplink = uplink }
        if let downlink { lastDownlink = downlink }
        let update: ConnectionQualityUpdate?
        if uplink == nil && downlink == nil {
            missedIntervals += 1
            update = monitor.recordMissedInterval()
        } else if let up = lastUplink ?? lastDownlink, let down = lastDownlink ?? lastUplink {
            update = monitor.record(uplink: up, downlink: down)
        } else {
            update = nil
        }
        guard let update else { return nil }
        append(update.report, to: &reports)
        onReport?(update.report)
        if let change = update.change {
            append(change, to: &changes)
            onQualityChange?(change)
        }
        return update
    }

    @discardableResult
    private func takeSamples(now: Int64) -> (uplink: QualitySample?, downlink: QualitySample?) {
        var uplinkStreams: [CallQualityStreamCounters] = []
        if let publisher {
            var octets: [UInt32: UInt64] = [:], rates: [UInt32: Int] = [:]
            for sender in publisher.videoSenders + (publisher.audioSender.map { [$0] } ?? []) {
                octets[sender.ssrc] = UInt64(sender.octetCount)
                rates[sender.ssrc] = Int(sender.configuration.clockRate)
            }
            var newestRTT: (time: Int64, rtt: Int64)?
            for (ssrc, received) in publisher.latestReportBlocks.sorted(by: { $0.key < $1.key }) {
                uplinkStreams.append(CallQualityStreamCounters(reportBlock: received.block, clockRate: rates[ssrc] ?? 0,
                                                               octetsSent: octets[ssrc] ?? 0))
                if let rtt = received.roundTripMicroseconds,
                   newestRTT.map({ received.arrivalMonotonicMicroseconds >= $0.time }) ?? true {
                    newestRTT = (received.arrivalMonotonicMicroseconds, rtt)
                }
            }
            if let newestRTT { uplinkRoundTripMilliseconds = Double(newestRTT.rtt) / 1_000 }
        }
        var downlinkStreams: [CallQualityStreamCounters] = []
        for subscriber in subscribers {
            for statistics in [subscriber.video.receptionStatistics, subscriber.audio.receptionStatistics] {
                if let statistics { downlinkStreams.append(CallQualityStreamCounters(receiving: statistics)) }
            }
        }
        let uplinkRTT = uplinkRoundTripMilliseconds
        let downlinkRTT = downlinkRoundTrip?() ?? uplinkRTT
        let uplink = publisher == nil ? nil
            : uplinkMeter.sample(streams: uplinkStreams, rttMilliseconds: uplinkRTT, nowMicroseconds: now)
        let downlink = downlinkMeter.sample(streams: downlinkStreams, rttMilliseconds: downlinkRTT, nowMicroseconds: now)
        return (uplink, downlink)
    }

    private func append<Element>(_ element: Element, to list: inout [Element]) {
        list.append(element)
        if list.count > configuration.historyLimit { list.removeFirst(list.count - configuration.historyLimit) }
    }
}
