internal import MediaCodecs
import MediaEngine

/// A microphone that speaks in turns: a tone in bursts (`talkFrames` on, `pauseFrames` off, 20 ms
/// frames), starting `offsetFrames` into the pattern; deterministic. What the room demo's
/// participants say, so active-speaker detection has someone to find.
public final class ToneSource: AudioFrameSource {
    private let signal: TestSignal
    private var index: Int
    private var remaining: Int?

    public init(frequencyHz: Double = 440, amplitude: Double = 0.3, talkFrames: Int = 30, pauseFrames: Int = 0,
                offsetFrames: Int = 0, frames: Int? = nil) {
        signal = TestSignal(frequencyHz: frequencyHz, amplitude: amplitude, talkFrames: talkFrames, pauseFrames: pauseFrames)
        index = max(0, offsetFrames)
        remaining = frames
    }

    public func nextFrame() throws -> AudioFrame? {
        if let left = remaining {
            guard left > 0 else { return nil }
            remaining = left - 1
        }
        defer { index += 1 }
        return signal.frame(index)
    }
}
