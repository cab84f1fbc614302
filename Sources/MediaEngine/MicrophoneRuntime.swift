internal import EngineCore
import MediaCodecs

/// A published microphone as the loop runs it: an audio-only publisher beside the camera's (same
/// socket, same node), fed from the track's queue as frames come, or from its source every 20 ms.
final class MicrophoneRuntime {
    static let frameIntervalMicroseconds: Int64 = 20_000
    let trackId: String
    let publisher: Publisher
    let channels: AudioFrame.Channels
    var isMuted = false
    private var audio: PacedFeed<AudioFrame>

    /// When `sendDueFrames` next has a frame (monotonic µs; nil: none waits, a push wakes the loop).
    func nextDue(now: Int64) -> Int64? { audio.waitingDue(now: now, pacingPushes: false) }

    init(trackId: String, publisher: Publisher, feed: TrackFeed<AudioFrame>, channels: AudioFrame.Channels) {
        self.trackId = trackId
        self.publisher = publisher
        audio = PacedFeed(trackId: trackId, feed: feed, intervalMicroseconds: Self.frameIntervalMicroseconds)
        self.channels = channels
    }

    /// Loop: pushed frames as they come; a source's frames one per 20 ms (a late loop restarts
    /// the cadence instead of bursting). Muted: silence in their place.
    func sendDueFrames(now: Int64) -> EngineError? {
        while let frame = audio.takeDue(at: now, pacingPushes: false) {
            if let error = send(frame) { return error }
        }
        return nil
    }

    private func send(_ frame: AudioFrame) -> EngineError? {
        do {
            try publisher.send(audio: isMuted ? AudioFrame.silence(channels: frame.channels) : frame)
            return nil
        } catch {
            return .invalidFrame("\(error)")
        }
    }

    func close() {
        try? publisher.sendGoodbye(reason: "left")
        audio.feed.finishSource(.failure(EngineError.closed("microphone track \(trackId)")))
    }
}
