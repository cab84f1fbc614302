import MediaCodecs
import SessionCore

/// Feeds a publisher in real time from sources that have no clock of their own (a file, the
/// built-in scene, a test tone): a video frame every 1/`frameRate` s and a 20 ms audio frame every
/// 20 ms of media time, answering the publisher's feedback (PLI, NACK, REMB, transport-wide
/// feedback) while it waits for the next one. For tools and tests; a capture pipeline pushes
/// frames into `LocalVideoTrack` instead.
public struct RealTimeMediaPump {
    public var frameRate: Int
    public var clock: MediaClock

    public init(frameRate: Int = 30, clock: MediaClock = .system) {
        self.frameRate = max(1, frameRate)
        self.clock = clock
    }

    /// What was sent.
    public struct Sent: Sendable, Equatable {
        public var videoFrames = 0
        public var audioFrames = 0
    }

    /// Sends for `seconds` (or until `shouldStop`), calling `between` with the elapsed
    /// microseconds after each wait. `video` nil: no video; `audio` nil: no audio (frame `n` of it
    /// is asked for by index).
    @discardableResult
    public func run(_ publisher: Publisher, seconds: Double, video: (() throws -> VideoFrame?)?, audio: ((Int) -> AudioFrame)?,
                    shouldStop: () -> Bool = { false }, between: (Int64) throws -> Void = { _ in }) throws -> Sent {
        var sent = Sent()
        let start = clock.monotonicMicroseconds()
        let duration = Int64(seconds * 1_000_000)
        let frameInterval = 1_000_000 / Int64(frameRate)
        while !shouldStop() {
            let elapsed = clock.monotonicMicroseconds() - start
            if elapsed >= duration { break }
            while let audio, Int64(sent.audioFrames) * 20_000 <= elapsed {
                try publisher.send(audio: audio(sent.audioFrames))
                sent.audioFrames += 1
            }
            if let video, Int64(sent.videoFrames) * frameInterval <= elapsed {
                if let frame = try video() { try publisher.send(video: frame) }
                sent.videoFrames += 1
            }
            let nextVideo = video == nil ? Int64.max : Int64(sent.videoFrames) * frameInterval
            let nextAudio = audio == nil ? Int64.max : Int64(sent.audioFrames) * 20_000
            let wait = min(nextVideo, nextAudio, duration) - (clock.monotonicMicroseconds() - start)
            _ = try publisher.pollIncoming(timeoutMilliseconds: Int32(max(0, min(20, wait / 1000))))
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
            try between(clock.monotonicMicroseconds() - start)
        }
        return sent
    }
}
