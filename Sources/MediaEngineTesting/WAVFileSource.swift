internal import MediaCodecs
import MediaEngine

/// A 48 kHz 16-bit PCM WAV file (mono or stereo) as a microphone: its 20 ms frames in order,
/// once through, optionally at most `frames` of them.
public final class WAVFileSource: AudioFrameSource {
    private let reader: WAVReader
    private var index = 0
    private let limit: Int?

    /// The file's channel layout (publish the track with it, e.g. `PlainRTPOptions.audioChannels`).
    public var channels: AudioFrame.Channels { reader.channels }

    /// Throws a typed error saying why the file cannot be read as such a WAV.
    public init(path: String, frames: Int? = nil) throws {
        reader = try WAVReader(path: path)
        limit = frames
    }

    public func nextFrame() throws -> AudioFrame? {
        if let limit, index >= limit { return nil }
        guard let frame = reader.frame(index) else { return nil }
        index += 1
        return frame
    }
}
