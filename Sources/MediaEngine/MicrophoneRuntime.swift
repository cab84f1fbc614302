internal import EngineCore
import MediaCodecs

/// A published microphone as the loop runs it: an audio-only publisher beside the camera's (same
/// socket, same node), fed from the track's queue, or from its source every 20 ms.
final class MicrophoneRuntime {
    static let frameIntervalMicroseconds: Int64 = 20_000
    let trackId: String
    let publisher: Publisher
    let feed: TrackFeed<AudioFrame>
    let channels: AudioFrame.Channels
    var isMuted = false
    private var nextSourceFrameMicroseconds: Int64 = 0

    init(trackId: String, publisher: Publisher, feed: TrackFeed<AudioFrame>, channels: AudioFrame.Channels) {
        self.trackId = trackId
        self.publisher = publisher
        self.feed = feed
        self.channels = channels
    }

    /// Loop: pushed frames as they come; a source's frames one per 20 ms (after a stall of more
    /// than 200 ms the cadence restarts instead of bursting). Muted: silence in their place.
    func sendDueFrames(now: Int64) -> EngineError? {
        if feed.isPlayingSource {
            if nextSourceFrameMicroseconds == 0 || now - nextSourceFrameMicroseconds > 200_000 {
                nextSourceFrameMicroseconds = now
            }
            while now >= nextSourceFrameMicroseconds {
                nextSourceFrameMicroseconds += Self.frameIntervalMicroseconds
                guard let frame = feed.take() else { break }
                if let error = send(frame) { return error }
            }
        } else {
            nextSourceFrameMicroseconds = 0
            while let frame = feed.take() {
                if let error = send(frame) { return error }
            }
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
        feed.finishSource(.failure(EngineError.closed("microphone track \(trackId)")))
    }
}
