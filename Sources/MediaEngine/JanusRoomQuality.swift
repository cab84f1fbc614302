internal import EngineCore
internal import SessionCore
import Simulcast

/// A Janus room's connection-quality reports (docs/quality-and-speakers.md), from our own RTCP as
/// the hosted room's participants make theirs: a `CallQualityReporter` (a
/// `ConnectionQualityMonitor` behind it) reads, once a second,
/// - the uplink from the reception report blocks Janus sends our publisher (RFC 3550 §6.4.1:
///   fraction and cumulative lost, interarrival jitter, LSR/DLSR for the RTT) and the octets it sent;
/// - the downlink from every consumed stream's own receive statistics (each endpoint on the
///   room's subscriber peer connection), with the uplink's RTT (same path to the same Janus).
/// A change of the overall level is told as `.qualityChanged`, as in a hosted room. The timer runs
/// only while there is something to measure (a publisher or a consumed stream). Loop-confined.
final class JanusRoomQuality {
    private let clock: MediaClock
    private var reporter: CallQualityReporter
    /// Every consumed stream's endpoint, by subscriber mid.
    private var subscribers: [String: Subscriber] = [:]
    /// The overall level last told: a reporter made anew (publishing started or stopped) starts
    /// from `.unknown`, but the app hears only real changes, from what it was told before.
    private var toldLevel: ConnectionQualityLevel?

    init(clock: MediaClock) {
        self.clock = clock
        reporter = Self.reporter(publisher: nil, subscribers: [], clock: clock)
    }

    private static func reporter(publisher: Publisher?, subscribers: [Subscriber], clock: MediaClock) -> CallQualityReporter {
        CallQualityReporter(configuration: .init(historyLimit: 1), publisher: publisher, subscribers: subscribers, clock: clock)
    }

    /// The publisher whose report blocks make the uplink (nil: nothing published). The reporter
    /// starts over (its levels from `.unknown`): the uplink is another connection.
    func setPublisher(_ publisher: Publisher?) {
        guard publisher !== reporter.publisher else { return }
        reporter = Self.reporter(publisher: publisher, subscribers: Array(subscribers.values), clock: clock)
    }

    /// A consumed stream's endpoint joins the downlink.
    func attach(_ stream: JanusReceivedStream) {
        subscribers[stream.mid] = stream.subscriber
        reporter.attach(stream.subscriber)
    }

    /// An ended stream leaves the downlink at the next report.
    func detach(_ stream: JanusReceivedStream) {
        guard let subscriber = subscribers[stream.mid], subscriber === stream.subscriber else { return }
        subscribers[stream.mid] = nil
        reporter.detach(subscriber)
    }

    /// Nothing to measure: no publisher, no consumed stream.
    private var isIdle: Bool { reporter.publisher == nil && subscribers.isEmpty }

    /// When the next report is due; nil while there is nothing to measure.
    var nextReportDue: Int64? { isIdle ? nil : reporter.nextReportDue }

    /// Reports if the second has passed: the event to tell when the overall level changed.
    func serviceIfDue() -> ParticipantEvent? {
        guard !isIdle, let change = reporter.serviceIfDue()?.change, change.overall != toldLevel else { return nil }
        defer { toldLevel = change.overall }
        return .qualityChanged(previous: toldLevel ?? change.previous, current: change.overall, mos: change.mos)
    }

    /// The latest report (nil before the first).
    var latestReport: QualityReport? { reporter.connectionQuality() }
}
