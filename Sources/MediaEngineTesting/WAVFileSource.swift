internal import MediaCodecs
import MediaEngine

/// A 48 kHz 16-bit PCM WAV file (mono or stereo) as a microphone: its 20 ms frames in order,
/// once through (`prefix(_:)` plays fewer).
public final class WAVFileSource: AudioFrameSource {
    private let reader: WAVReader
    private var index = 0

    /// The file's channel layout (publish the track with it, e.g. `PlainRTPOptions.audioChannels`).
    public var channels: AudioFrame.Channels { reader.channels }

    /// Throws a typed error saying why the file cannot be read as such a WAV.
    public init(path: String) throws {
        reader = try WAVReader(path: path)
    }

    public func nextFrame() throws -> AudioFrame? {
        guard let frame = reader.frame(index) else { return nil }
        index += 1
        return frame
    }
}
