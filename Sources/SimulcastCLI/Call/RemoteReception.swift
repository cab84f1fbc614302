import CommandLineSupport
import Foundation
import MediaCodecs
import MediaEngine

/// What `simulcast call` receives from one remote participant: its camera (`RemoteVideoTrack`) and
/// microphone (`RemoteAudioTrack`), each read to its end by a task of its own, counted (frames per
/// second for the live table, the decoded frames and audio blocks of the last 10 s for the summary,
/// the first frame's and first block's time since joining), and with `--save` written to
/// `DIR/<participant id>.ivf` (what arrived, before decoding) and `DIR/<participant id>.wav`.
actor RemoteReception {
    let participantId: String
    private(set) var displayName: String
    private let joined: ContinuousClock.Instant
    private var video: RemoteVideoTrack?
    private var audio: RemoteAudioTrack?
    private var wav: WAVFileWriter?
    private var frameTimes: [ContinuousClock.Instant] = []
    private var audioTimes: [ContinuousClock.Instant] = []
    private var firstFrameMilliseconds: Int?
    private var firstAudioMilliseconds: Int?
    private var leftMilliseconds: Int?
    private var leftAt: ContinuousClock.Instant?
    private var pausedReason: String?
    /// Whether the room's active-speaker detection counts this participant as speaking now, and
    /// whether it is the dominant speaker (`.activeSpeakersChanged`, `.dominantSpeakerChanged`).
    private var isSpeaking = false
    private var isDominant = false
    private var readers: [Task<Void, Never>] = []
    /// The last stats read (`sample`): what the summary reports once the tracks ended.
    private var videoStats: RemoteVideoStats?
    private var audioStats: RemoteAudioStats?
    private var problems: [String] = []

    init(participantId: String, displayName: String, joined: ContinuousClock.Instant) {
        self.participantId = participantId
        self.displayName = displayName
        self.joined = joined
    }

    private func millisecondsSinceJoin() -> Int { Int((ContinuousClock.now - joined) / .milliseconds(1)) }

    /// Subscribes the camera (once), records it under `saveDirectory`, and reads its frames.
    func consumeCamera(of participant: LocalParticipant, saveDirectory: String?) async {
        guard video == nil else { return }
        do {
            let track = try await participant.subscribe(to: participantId)
            video = track
            let path = saveDirectory.map { "\($0)/\(participantId).ivf" }
            readers.append(Task {
                for await _ in track.frames {
                    // A recording starts once the first frame told the picture size (its IVF header).
                    if self.frameDecoded(), let path {
                        do throws(EngineError) { try await track.startRecording(ivfPath: path) } catch { self.note("recording: \(error)") }
                    }
                }
            })
        } catch {
            problems.append("camera: \(error)")
        }
    }

    /// Consumes the microphone (once), writes it under `saveDirectory`, and reads its blocks.
    func consumeMicrophone(of participant: LocalParticipant, saveDirectory: String?) async {
        guard audio == nil else { return }
        do {
            let track = try await participant.subscribe(toMicrophoneOf: participantId)
            audio = track
            if let saveDirectory { wav = try WAVFileWriter(path: "\(saveDirectory)/\(participantId).wav", channels: 1) }
            readers.append(Task { for await frame in track.frames { self.audioBlock(frame) } })
        } catch {
            problems.append("microphone: \(error)")
        }
    }

    /// Counts a decoded frame; true for the first.
    private func frameDecoded() -> Bool {
        frameTimes.append(.now)
        guard firstFrameMilliseconds == nil else { return false }
        firstFrameMilliseconds = millisecondsSinceJoin()
        return true
    }

    private func note(_ problem: String) { problems.append(problem) }

    private func audioBlock(_ frame: ReceivedAudioFrame) {
        if firstAudioMilliseconds == nil { firstAudioMilliseconds = millisecondsSinceJoin() }
        audioTimes.append(.now)
        let mono: [Int16] = frame.audio.channels == .mono ? frame.audio.samples
            : stride(from: 0, to: frame.audio.samples.count - 1, by: 2).map { frame.audio.samples[$0] }
        do { try wav?.append(mono) } catch { problems.append("\(error)"); wav = nil }
    }

    func noteLeft() {
        guard leftAt == nil else { return }
        leftAt = .now
        leftMilliseconds = millisecondsSinceJoin()
    }
    func notePaused(_ reason: String?) { pausedReason = reason }
    func noteSpeaking(_ speaking: Bool) { isSpeaking = speaking }
    func noteDominant(_ dominant: Bool) { isDominant = dominant }
    func rename(_ name: String) { displayName = name }

    /// Reads the tracks' stats (kept for the summary: a track that ended has none to read).
    func sample() async {
        if let stats = try? await video?.stats() { videoStats = stats }
        if let stats = try? await audio?.stats() { audioStats = stats }
    }

    /// One row of the live table: frames in the last second, layer, audio level, paused and why.
    func liveRow() -> String {
        let cutoff = ContinuousClock.now - .seconds(1)
        let fps = frameTimes.reversed().prefix { $0 >= cutoff }.count
        let layer = videoStats?.currentSpatialLayer.map { "L\($0)" } ?? "-"
        let level = audioStats?.audioLevel.map { "-\($0) dBov" } ?? "-"
        let speaking = isDominant ? "dominant" : isSpeaking ? "speaking" : "quiet"
        let state = leftMilliseconds != nil ? "left" : pausedReason.map { "paused (\($0))" } ?? "receiving"
        return "\(participantId.padding(toLength: 16, withPad: " ", startingAt: 0)) video \(layer) \(fps) fps, audio \(level) \(speaking), \(state)"
    }

    /// Stops reading, finishes the files; the summary as JSON.
    func finish() async -> JSONValue {
        await sample()
        try? await video?.stopRecording()
        await audio?.stopConsuming()
        for reader in readers { reader.cancel() }
        do { try wav?.close() } catch { problems.append("\(error)") }
        // The last 10 s this participant was in the call (until it left, or until now).
        let windowEnd = leftAt ?? .now, lastTen = windowEnd - .seconds(10)
        func number(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }
        return .object([
            ("displayName", .string(displayName)),
            ("framesDecoded", .int(frameTimes.count)),
            ("framesDecodedLast10s", .int(frameTimes.filter { $0 >= lastTen && $0 <= windowEnd }.count)),
            ("decoderErrors", number(videoStats?.decoderErrors)),
            ("freezeCount", number(videoStats?.freezeCount)),
            ("firstFrameMs", number(firstFrameMilliseconds)),
            ("audioBlocks", .int(audioTimes.count)),
            ("audioBlocksLast10s", .int(audioTimes.filter { $0 >= lastTen && $0 <= windowEnd }.count)),
            ("audioConcealedMs", number(audioStats?.concealedMilliseconds)),
            ("audioPacketsLost", number(audioStats?.packetsLost)),
            ("audioDecoderErrors", number(audioStats?.decoderErrors)),
            ("firstAudioMs", number(firstAudioMilliseconds)),
            ("leftAtMs", number(leftMilliseconds)),
            ("wav", wav.map { .string($0.path) } ?? .null),
            ("problems", .array(problems.map { .string($0) })),
        ])
    }
}
