import RTPWire
import SessionCore
import Simulcast

/// Active speakers from received audio (docs/quality-and-speakers.md), wired into the engine: the RFC 6464 level of
/// every received audio packet (`Subscriber.onAudioLevel`, via `attach`, or `observe` directly)
/// goes, under the participant and track the caller mapped its SSRC to, into an
/// `ActiveSpeakerDetector`; every `evaluationIntervalMicroseconds` on the injected clock
/// (`serviceIfDue()` from the caller's loop) the detector is evaluated and
///
/// - a changed snapshot (sorted by level descending; empty when the last speaker fell silent) is
///   appended to `snapshots` and passed to `onSnapshot`;
/// - a dominant-speaker change is appended to `dominantSpeakerChanges` and passed to
///   `onDominantSpeakerChange`.
///
/// Levels of unmapped SSRCs are counted (`unmappedLevels`) and ignored. Not `Sendable`; confine
/// it with the subscribers it listens to.
public final class ActiveSpeakerFeed {
    /// How often the detector is evaluated, microseconds (≥ 1 ms).
    public let evaluationIntervalMicroseconds: Int64
    /// Called with every emitted snapshot.
    public var onSnapshot: (([ActiveSpeaker]) -> Void)?
    /// Called with every dominant-speaker change.
    public var onDominantSpeakerChange: ((DominantSpeakerChange) -> Void)?
    /// Snapshots emitted so far (at most `historyLimit`), oldest first.
    public private(set) var snapshots: [[ActiveSpeaker]] = []
    /// Dominant-speaker changes so far (at most `historyLimit`), oldest first.
    public private(set) var dominantSpeakerChanges: [DominantSpeakerChange] = []
    /// Levels observed, and of those from SSRCs nobody mapped.
    public private(set) var observedLevels = 0
    public private(set) var unmappedLevels = 0
    /// Most snapshots and changes kept.
    public let historyLimit: Int

    private var detector: ActiveSpeakerDetector
    private var tracks: [UInt32: SpeakerTrackKey] = [:]
    private let clock: MediaClock
    private var nextEvaluation: Int64?
    /// `observedLevels` at the last evaluation.
    private var levelsAtEvaluation = 0

    /// - Parameter clock: monotonic microseconds, the same clock the subscribers stamp arrivals
    ///   with.
    public init(configuration: ActiveSpeakerDetector.Configuration = .init(),
                evaluationIntervalMicroseconds: Int64 = 100_000, historyLimit: Int = 10_000,
                clock: MediaClock = .system) {
        detector = ActiveSpeakerDetector(configuration: configuration)
        self.evaluationIntervalMicroseconds = max(1_000, evaluationIntervalMicroseconds)
        self.historyLimit = max(1, historyLimit)
        self.clock = clock
    }

    /// Says whose mic track the audio stream `ssrc` is (from signalling).
    public func map(ssrc: UInt32, participantId: String, trackId: String) {
        if let previous = tracks[ssrc], previous != SpeakerTrackKey(participantId: participantId, trackId: trackId) {
            detector.removeTrack(participantId: previous.participantId, trackId: previous.trackId)
        }
        tracks[ssrc] = SpeakerTrackKey(participantId: participantId, trackId: trackId)
    }

    /// The stream was unsubscribed or unpublished: forget its track.
    public func unmap(ssrc: UInt32) {
        guard let key = tracks.removeValue(forKey: ssrc) else { return }
        detector.removeTrack(participantId: key.participantId, trackId: key.trackId)
    }

    /// The participant left: forget it and its streams.
    public func removeParticipant(_ participantId: String) {
        for (ssrc, key) in tracks where key.participantId == participantId { tracks[ssrc] = nil }
        detector.removeParticipant(participantId)
    }

    /// Listens to `subscriber`'s audio levels (replaces its `onAudioLevel`).
    public func attach(_ subscriber: Subscriber) {
        subscriber.onAudioLevel = { [weak self] level in self?.observe(level) }
    }

    /// Records one received level.
    public func observe(_ received: ReceivedAudioLevel) {
        observedLevels += 1
        guard let key = tracks[received.ssrc] else {
            unmappedLevels += 1
            return
        }
        detector.observe(participantId: key.participantId, trackId: key.trackId, level: received.level,
                         atMilliseconds: received.arrivalMicroseconds / 1_000)
    }

    /// The latest snapshot (sorted by level descending).
    public var snapshot: [ActiveSpeaker] { detector.snapshot }
    /// The participant on stage, if any.
    public var dominantSpeaker: String? { detector.dominantSpeaker }

    /// Participants from most to least dominant now (for adaptive subscriptions).
    public func dominanceRanking() -> [String] { detector.dominanceRanking(atMilliseconds: clock.monotonicMicroseconds() / 1_000) }

    /// When `serviceIfDue()` next has something to evaluate (monotonic µs; `Int64.min`: at once):
    /// the interval's end while levels arrived since the last evaluation or someone still speaks
    /// (the snapshot empties when they fall silent); nil otherwise, as nothing can change until
    /// a level arrives.
    public var nextEvaluationDue: Int64? {
        guard observedLevels != levelsAtEvaluation || !detector.snapshot.isEmpty else { return nil }
        return nextEvaluation ?? .min
    }

    /// Evaluates if the interval has passed. Returns the update when one was made.
    @discardableResult
    public func serviceIfDue() -> ActiveSpeakerUpdate? {
        let now = clock.monotonicMicroseconds()
        if let due = nextEvaluation, now < due { return nil }
        nextEvaluation = now + evaluationIntervalMicroseconds
        levelsAtEvaluation = observedLevels
        return evaluate()
    }

    /// Evaluates now.
    @discardableResult
    public func evaluate() -> ActiveSpeakerUpdate {
        let update = detector.evaluate(atMilliseconds: clock.monotonicMicroseconds() / 1_000)
        if let snapshot = update.snapshot {
            append(snapshot, to: &snapshots)
            onSnapshot?(snapshot)
        }
        if let change = update.dominantSpeakerChange {
            append(change, to: &dominantSpeakerChanges)
            onDominantSpeakerChange?(change)
        }
        return update
    }

    private func append<Element>(_ element: Element, to list: inout [Element]) {
        list.append(element)
        if list.count > historyLimit { list.removeFirst(list.count - historyLimit) }
    }
}
