public import RTPWire

/// Who is speaking, how loudly, and who holds the stage (docs/quality-and-speakers.md), from the RFC 6464 audio levels
/// of every received microphone track. Pure state: the caller passes each packet's level with its
/// arrival time (`observe`) and asks for the result whenever it wants (`evaluate`, e.g. every
/// 100 ms). Times are milliseconds on any monotonic clock.
///
/// Every level is taken to stand for one audio frame of `frameDurationMilliseconds` (20 ms for
/// Opus by default). A frame is *speech* when its V bit is set and it is no quieter than
/// `speechThresholdDBov`; every other frame, and every frame that never arrived (DTX, loss),
/// counts as silence. Averages are over time, not over packets:
/// `average(W) = Σ linear(speech frames in the last W ms) · frameDuration / W`, at most 1, with
/// `linear = 10^(−dBov/20)`.
///
/// Snapshot (`ActiveSpeakerUpdate.snapshot`): every track whose average over
/// `levelWindowMilliseconds` (default 300) is at least `minimumSpeakingLevel`, with that average
/// as its level, sorted by level descending (ties by participant id, then track id). A snapshot
/// is emitted when the ordered list of tracks differs from the last one emitted, or a level has
/// moved by `levelChangeDecibels` or more since; in particular an empty snapshot is emitted when
/// the last speaker falls silent. Nothing is emitted while nothing changes (so not at a silent
/// start).
///
/// Dominant speaker (`DominantSpeakerChange`), per participant (its loudest track):
/// - *activity* = fraction of the last `dominanceWindowMilliseconds` (default 1 s) covered by
///   speech frames; *loudness* = the average over that window.
/// - Only a participant with activity ≥ `minimumDominanceActivity` (default 0.5) can take the
///   stage. A cough or a door slam (< ~300 ms, so activity ≤ 0.3) therefore never does, however
///   loud.
/// - With nobody on stage the loudest eligible participant takes it at once. Otherwise the loudest
///   eligible challenger takes it when its loudness is at least `dominanceRatio` (default 1.5)
///   times the holder's and has stayed so for `dominanceHoldMilliseconds` (default 250).
/// - A clean turn change at equal loudness (A stops, B starts) is picked up after ≈ 850 ms: B
///   needs 600 ms to reach 1.5 × A's fading loudness, then the hold. An interruption that is
///   clearly louder while the holder keeps talking (6 dB) takes ≈ 1 s. Both are within 1.5 s
///   when `evaluate` runs at least every 100 ms.
/// - The holder keeps the stage through silence (nobody else speaking is no reason to move the
///   spotlight); it leaves only when another participant takes over or it is removed.
public struct ActiveSpeakerDetector: Sendable {
    /// Tuning.
    public struct Configuration: Sendable, Hashable {
        /// Audio duration each observed level stands for.
        public var frameDurationMilliseconds: Int64
        /// Quietest level (in −dBov, so the largest number) counted as speech when V is set.
        public var speechThresholdDBov: UInt8
        /// Window of the snapshot level average.
        public var levelWindowMilliseconds: Int64
        /// Smallest snapshot level average for a track to be listed.
        public var minimumSpeakingLevel: Double
        /// Level movement that makes an otherwise unchanged snapshot worth emitting again.
        public var levelChangeDecibels: Double
        /// Window of the dominance activity and loudness.
        public var dominanceWindowMilliseconds: Int64
        /// Activity (0...1) a participant needs before it can take the stage.
        public var minimumDominanceActivity: Double
        /// How many times louder than the holder a challenger must be.
        public var dominanceRatio: Double
        /// How long a challenger must keep qualifying before it takes the stage.
        public var dominanceHoldMilliseconds: Int64

        public init(frameDurationMilliseconds: Int64 = 20, speechThresholdDBov: UInt8 = 50,
                    levelWindowMilliseconds: Int64 = 300, minimumSpeakingLevel: Double = 0.001,
                    levelChangeDecibels: Double = 2, dominanceWindowMilliseconds: Int64 = 1_000,
                    minimumDominanceActivity: Double = 0.5, dominanceRatio: Double = 1.5,
                    dominanceHoldMilliseconds: Int64 = 250) {
            // Windows and frames are clamped to ≥ 1 ms so no average divides by zero.
            self.frameDurationMilliseconds = max(1, frameDurationMilliseconds)
            self.speechThresholdDBov = min(speechThresholdDBov, 127)
            self.levelWindowMilliseconds = max(1, levelWindowMilliseconds)
            self.minimumSpeakingLevel = minimumSpeakingLevel.isFinite ? max(minimumSpeakingLevel, 0) : 0
            self.levelChangeDecibels = levelChangeDecibels.isFinite ? max(levelChangeDecibels, 0) : 0
            self.dominanceWindowMilliseconds = max(1, dominanceWindowMilliseconds)
            self.minimumDominanceActivity = minimumDominanceActivity.isFinite
                ? min(max(minimumDominanceActivity, 0), 1) : 0.5
            self.dominanceRatio = dominanceRatio.isFinite ? max(dominanceRatio, 1) : 1
            self.dominanceHoldMilliseconds = max(0, dominanceHoldMilliseconds)
        }
    }

    private struct SpeechFrame: Sendable {
        var time: Int64
        var linear: Double
    }

    private struct Challenger: Sendable {
        var participantId: String
        var since: Int64
    }

    /// The tuning in use.
    public let configuration: Configuration
    /// Speech frames per track in time order, kept for the longer of the two windows.
    private var speech: [SpeakerTrackKey: [SpeechFrame]] = [:]
    /// Every participant heard from, speaking or not.
    private var participants: Set<String> = []
    /// When each participant last sent a speech frame.
    private var lastSpokeAt: [String: Int64] = [:]
    private var lastEmitted: [ActiveSpeaker] = []
    private var challenger: Challenger?

    /// The latest snapshot computed by `evaluate`, sorted by level descending.
    public private(set) var snapshot: [ActiveSpeaker] = []
    /// The participant on stage; nil until someone has spoken long enough.
    public private(set) var dominantSpeaker: String?

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// `10^(−dBov/20)` for dBov 0...127 (RFC 6464 §3), built by repeated multiplication so the
    /// module needs no math library.
    static let linearLevels: [Double] = {
        let oneDecibelDown = 0.891_250_938_133_745_6  // 10^(−1/20)
        var table: [Double] = [1]
        for _ in 1...127 { table.append((table.last ?? 1) * oneDecibelDown) }
        return table
    }()

    /// The linear level (0...1) of an RFC 6464 level in −dBov; 127 is digital silence (0).
    public static func linearLevel(dBov: UInt8) -> Double {
        dBov >= 127 ? 0 : linearLevels[Int(dBov)]
    }

    /// Records the RFC 6464 level carried by one packet of `trackId` from `participantId`.
    public mutating func observe(participantId: String, trackId: String, level: AudioLevel, atMilliseconds time: Int64) {
        observe(participantId: participantId, trackId: trackId, dBov: level.level,
                voiceActivity: level.voiceActivity, atMilliseconds: time)
    }

    /// Records a level in −dBov (values above 127 are taken as 127) with its V bit.
    public mutating func observe(participantId: String, trackId: String, dBov: UInt8, voiceActivity: Bool,
                                 atMilliseconds time: Int64) {
        let key = SpeakerTrackKey(participantId: participantId, trackId: trackId)
        participants.insert(participantId)
        let level = min(dBov, 127)
        guard voiceActivity, level <= configuration.speechThresholdDBov, level < 127 else {
            if speech[key] == nil { speech[key] = [] }
            return
        }
        // Kept in time order (averages and pruning walk from the ends): packets almost always
        // arrive in order, so the insertion point is found by walking back from the end.
        var frames = speech[key] ?? []
        speech[key] = nil  // uniquely referenced while edited
        var index = frames.endIndex
        while index > frames.startIndex, frames[index - 1].time > time { index -= 1 }
        frames.insert(SpeechFrame(time: time, linear: Self.linearLevel(dBov: level)), at: index)
        speech[key] = frames
        // max: a late (reordered) packet must not make the participant look less recent.
        lastSpokeAt[participantId] = max(lastSpokeAt[participantId] ?? time, time)
        prune(key, now: time)
    }

    /// Forgets one track (unpublished or unsubscribed).
    public mutating func removeTrack(participantId: String, trackId: String) {
        speech[SpeakerTrackKey(participantId: participantId, trackId: trackId)] = nil
    }

    /// Forgets a participant (left the room). If it held the stage, the next `evaluate` reports
    /// the dominant speaker moving to nobody (or straight to an eligible successor).
    public mutating func removeParticipant(_ participantId: String) {
        for key in speech.keys where key.participantId == participantId { speech[key] = nil }
        participants.remove(participantId)
        lastSpokeAt[participantId] = nil
        if challenger?.participantId == participantId { challenger = nil }
    }

    /// Recomputes the snapshot and the dominant speaker at `now`.
    public mutating func evaluate(atMilliseconds now: Int64) -> ActiveSpeakerUpdate {
        for key in Array(speech.keys) { prune(key, now: now) }
        let current = computeSnapshot(now: now)
        snapshot = current
        var emitted: [ActiveSpeaker]?
        if snapshotDiffers(current, from: lastEmitted) {
            lastEmitted = current
            emitted = current
        }
        return ActiveSpeakerUpdate(snapshot: emitted, dominantSpeakerChange: updateDominantSpeaker(now: now))
    }

    // MARK: - Averages

    /// Σ linear(speech frames in (now − window, now]) · frame / window, at most 1; with
    /// `linear` replaced by 1 this is the activity.
    private func average(_ key: SpeakerTrackKey, window: Int64, now: Int64, activity: Bool = false) -> Double {
        guard let frames = speech[key] else { return 0 }
        let start = elapsedMilliseconds(from: window, to: now)  // now − window, saturating
        var sum = 0.0
        for frame in frames.reversed() {
            guard frame.time > start else { break }
            if frame.time <= now { sum += activity ? 1 : frame.linear }
        }
        return min(1, sum * Double(configuration.frameDurationMilliseconds) / Double(window))
    }

    private mutating func prune(_ key: SpeakerTrackKey, now: Int64) {
        let keep = max(configuration.levelWindowMilliseconds, configuration.dominanceWindowMilliseconds)
        let start = elapsedMilliseconds(from: keep, to: now)  // now − keep, saturating
        guard let frames = speech[key], let first = frames.first, first.time <= start else { return }
        let stale = frames.firstIndex { $0.time > start } ?? frames.count
        speech[key]?.removeFirst(stale)
    }

    // MARK: - Snapshot

    private func computeSnapshot(now: Int64) -> [ActiveSpeaker] {
        var speakers: [ActiveSpeaker] = []
        for key in speech.keys {
            let level = average(key, window: configuration.levelWindowMilliseconds, now: now)
            if level > 0, level >= configuration.minimumSpeakingLevel {
                speakers.append(ActiveSpeaker(participantId: key.participantId, trackId: key.trackId, level: level))
            }
        }
        return speakers.sorted { lhs, rhs in
            lhs.level != rhs.level ? lhs.level > rhs.level : lhs.key < rhs.key
        }
    }

    private func snapshotDiffers(_ current: [ActiveSpeaker], from previous: [ActiveSpeaker]) -> Bool {
        guard current.map(\.key) == previous.map(\.key) else { return true }
        // 10^(dB/20) by the same table (whole decibels are plenty for a reporting tolerance).
        let decibels = Int(min(configuration.levelChangeDecibels.rounded(), 127))
        let ratio = 1 / Self.linearLevels[max(0, decibels)]
        for (now, before) in zip(current, previous) {
            let larger = max(now.level, before.level), smaller = min(now.level, before.level)
            if larger >= smaller * ratio, larger != smaller { return true }
        }
        return false
    }

    // MARK: - Dominant speaker

    private mutating func updateDominantSpeaker(now: Int64) -> DominantSpeakerChange? {
        var loudness: [String: Double] = [:]
        var activity: [String: Double] = [:]
        let window = configuration.dominanceWindowMilliseconds
        for key in speech.keys {
            loudness[key.participantId] = max(loudness[key.participantId] ?? 0, average(key, window: window, now: now))
            activity[key.participantId] = max(activity[key.participantId] ?? 0,
                                              average(key, window: window, now: now, activity: true))
        }
        let previous = dominantSpeaker
        if let holder = dominantSpeaker, !participants.contains(holder) {
            dominantSpeaker = nil  // removed
        }
        let eligible = activity.filter { $0.value >= configuration.minimumDominanceActivity }.keys
            .filter { (loudness[$0] ?? 0) > 0 }
        let best = eligible.max { lhs, rhs in
            let l = loudness[lhs] ?? 0, r = loudness[rhs] ?? 0
            return l != r ? l < r : lhs > rhs
        }
        if let holder = dominantSpeaker {
            if let best, best != holder, (loudness[best] ?? 0) >= configuration.dominanceRatio * (loudness[holder] ?? 0) {
                if let running = challenger, running.participantId == best {
                    if elapsedMilliseconds(from: running.since, to: now) >= configuration.dominanceHoldMilliseconds {
                        dominantSpeaker = best
                        challenger = nil
                    }
                } else if configuration.dominanceHoldMilliseconds == 0 {
                    dominantSpeaker = best
                } else {
                    challenger = Challenger(participantId: best, since: now)
                }
            } else {
                challenger = nil
            }
        } else if let best {
            dominantSpeaker = best
            challenger = nil
        }
        return previous == dominantSpeaker ? nil : DominantSpeakerChange(previous: previous, current: dominantSpeaker)
    }

    /// Participants from most to least dominant, for adaptive subscriptions (docs/adaptive-subscriptions.md): the one on
    /// stage first, then by loudness over the dominance window ending at `now`, then by how
    /// recently they last spoke, then those never heard speaking; ties by id.
    public func dominanceRanking(atMilliseconds now: Int64) -> [String] {
        var loudness: [String: Double] = [:]
        for key in speech.keys {
            loudness[key.participantId] = max(loudness[key.participantId] ?? 0,
                                              average(key, window: configuration.dominanceWindowMilliseconds, now: now))
        }
        return participants.sorted { lhs, rhs in
            if lhs == dominantSpeaker || rhs == dominantSpeaker { return lhs == dominantSpeaker && rhs != dominantSpeaker }
            let l = loudness[lhs] ?? 0, r = loudness[rhs] ?? 0
            if l != r { return l > r }
            switch (lastSpokeAt[lhs], lastSpokeAt[rhs]) {
            case let (.some(a), .some(b)) where a != b: return a > b
            case (.some, .none): return true
            case (.none, .some): return false
            default: return lhs < rhs
            }
        }
    }
}
