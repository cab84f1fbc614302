import Glibc

/// A deterministic built-in audio source for demos and tests: a tone switched on and off in
/// speech-like bursts. Frame `n` is a pure function of `n`, so runs are reproducible.
public struct TestSignal: Sendable {
    public var frequencyHz: Double
    /// Peak amplitude as a fraction of full scale (0...1).
    public var amplitude: Double
    /// Burst pattern in 20 ms frames: `talkFrames` on, then `pauseFrames` off (0 = continuous).
    public var talkFrames: Int
    public var pauseFrames: Int
    public var channels: AudioFrame.Channels

    public init(frequencyHz: Double = 440, amplitude: Double = 0.3, talkFrames: Int = 30, pauseFrames: Int = 0,
                channels: AudioFrame.Channels = .mono) {
        self.frequencyHz = frequencyHz
        self.amplitude = min(max(amplitude, 0), 1)
        self.talkFrames = max(1, talkFrames)
        self.pauseFrames = max(0, pauseFrames)
        self.channels = channels
    }

    /// Whether frame `index` falls in a talk burst.
    public func isTalking(frame index: Int) -> Bool {
        pauseFrames == 0 || index % (talkFrames + pauseFrames) < talkFrames
    }

    /// The 20 ms frame at `index`.
    public func frame(_ index: Int) -> AudioFrame {
        let perChannel = AudioFrame.samplesPerChannel20ms
        guard isTalking(frame: index) else { return .silence(channels: channels) }
        var samples = [Int16](repeating: 0, count: perChannel * channels.count)
        let start = index * perChannel
        let step = 2 * Double.pi * frequencyHz / Double(AudioFrame.sampleRate)
        for i in 0..<perChannel {
            let value = Int16((amplitude * 32767 * sin(step * Double(start + i))).rounded())
            for channel in 0..<channels.count { samples[i * channels.count + channel] = value }
        }
        return AudioFrame(channels: channels, samples: samples)
    }
}
