#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a WAV file cannot be used as a mic track, or written (`WAVFileWriter`).
public enum WAVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Creating or writing the file failed (`fopen`/`fwrite`/`fclose`'s errno).
    case writeFailed(path: String, errno: Int32)
    /// The path cannot be read as a file at all (missing, unreadable, a directory, a device, empty).
    case file(InputFileError)
    /// The file ends inside a header or chunk.
    case truncated(String)
    /// Not RIFF/WAVE, or no `fmt ` / `data` chunk.
    case notWAV(String)
    /// Not 16-bit PCM at 48 kHz with 1 or 2 channels (the only input the Opus path takes).
    case unsupportedFormat(String)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .writeFailed(path, code): return "cannot write the WAV file \(path): \(String(cString: strerror(code)))"
        case let .file(error): return "cannot read \(error.path) as a WAV file: \(error.reason)"
        case let .truncated(part): return "the WAV file is cut short inside its \(part)"
        case let .notWAV(why): return "not a WAV file (\(why)): expected a RIFF/WAVE file with 'fmt ' and 'data' chunks"
        case let .unsupportedFormat(what):
            return "the WAV audio is \(what); only 16-bit PCM at 48000 Hz, mono or stereo, can be sent"
        }
    }
}

/// Reads 16-bit little-endian PCM WAV (RIFF/WAVE, `fmt ` format 1 or WAVE_FORMAT_EXTENSIBLE
/// with PCM) at 48 kHz, mono or stereo, and cuts it into 20 ms `AudioFrame`s.
public struct WAVReader: Sendable {
    public let channels: AudioFrame.Channels
    /// All samples, interleaved.
    public let samples: [Int16]

    /// Reads a WAV file (a non-empty regular file; `InputFile.readAll`'s size limit).
    /// - Throws: `.file` if the path cannot be read as a file, else the format's errors.
    public init(path: String) throws(WAVError) {
        let bytes: [UInt8]
        do { bytes = try InputFile.readAll(path) } catch { throw .file(error) }
        try self.init(bytes: bytes)
    }

    /// Parses an in-memory WAV file.
    public init(bytes: [UInt8]) throws(WAVError) {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard bytes.count >= 12 else { throw .truncated("RIFF header") }
        guard tag(0) == "RIFF", tag(8) == "WAVE" else { throw .notWAV("missing RIFF/WAVE signature") }
        var offset = 12
        var format: (channels: Int, rate: Int, bits: Int, code: Int)?
        var data: Range<Int>?
        while offset + 8 <= bytes.count, data == nil {
            let id = tag(offset), size = u32(offset + 4)
            let body = offset + 8
            guard size <= bytes.count - body else { throw .truncated("chunk '\(id)'") }
            if id == "fmt " {
                guard size >= 16 else { throw .truncated("fmt chunk") }
                var code = u16(body)
                if code == 0xFFFE, size >= 26 { code = u16(body + 24) }  // extensible: sub-format GUID
                format = (u16(body + 2), u32(body + 4), u16(body + 14), code)
            } else if id == "data" {
                data = body..<(body + size)
            }
            offset = body + size + (size & 1)
        }
        guard let format else { throw .notWAV("no fmt chunk") }
        guard let data else { throw .notWAV("no data chunk") }
        guard format.code == 1, format.bits == 16 else {
            throw .unsupportedFormat("format code \(format.code) (1 = PCM) with \(format.bits)-bit samples")
        }
        guard format.rate == AudioFrame.sampleRate else {
            throw .unsupportedFormat("sampled at \(format.rate) Hz")
        }
        guard let layout = AudioFrame.Channels(rawValue: format.channels) else {
            throw .unsupportedFormat("\(format.channels) channels")
        }
        channels = layout
        var samples = [Int16]()
        samples.reserveCapacity(data.count / 2)
        var index = data.lowerBound
        while index + 1 < data.upperBound {
            samples.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
            index += 2
        }
        self.samples = samples
    }

    /// Number of whole 20 ms frames in the file.
    public var frameCount: Int { samples.count / (AudioFrame.samplesPerChannel20ms * channels.count) }

    /// The 20 ms frame at `index` (0..<frameCount).
    public func frame(_ index: Int) -> AudioFrame? {
        let length = AudioFrame.samplesPerChannel20ms * channels.count
        guard index >= 0, index < frameCount else { return nil }
        return AudioFrame(channels: channels, samples: Array(samples[(index * length)..<((index + 1) * length)]))
    }
}
