#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes 16-bit PCM at 48 kHz to a RIFF/WAVE file (the canonical 44-byte header, `fmt ` chunk
/// format 1) straight to disk, block by block; the RIFF and `data` sizes are written when the
/// file is closed (`close()`), so memory stays flat however long the recording. What `WAVReader`
/// reads back.
///
/// Not `Sendable`: it owns an open `FILE*`; use it from one task at a time.
public final class WAVFileWriter {
    public let path: String
    public let channels: Int
    /// Samples written (all channels).
    public private(set) var sampleCount = 0
    private var file: UnsafeMutablePointer<FILE>?

    /// Creates (or truncates) `path` and writes a header for 0 samples.
    /// - Throws: `WAVError.writeFailed` with `fopen`'s or `fwrite`'s errno.
    public init(path: String, channels: Int = 1) throws(WAVError) {
        self.path = path
        self.channels = max(1, min(channels, 2))
        guard let file = fopen(path, "wb") else { throw .writeFailed(path: path, errno: errno) }
        self.file = file
        try write(header(dataBytes: 0))
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Appends interleaved samples.
    public func append(_ samples: [Int16]) throws(WAVError) {
        guard let file, !samples.isEmpty else { return }
        let written = samples.withUnsafeBufferPointer { fwrite($0.baseAddress, 2, $0.count, file) }
        guard written == samples.count else { throw .writeFailed(path: path, errno: errno) }
        sampleCount += samples.count
    }

    /// Writes the sizes into the header and closes the file.
    public func close() throws(WAVError) {
        guard let file else { return }
        defer { self.file = nil }
        let dataBytes = UInt32(clamping: sampleCount * 2)
        guard fseek(file, 0, SEEK_SET) == 0 else {
            fclose(file)
            throw .writeFailed(path: path, errno: errno)
        }
        try write(header(dataBytes: dataBytes))
        guard fclose(file) == 0 else { throw .writeFailed(path: path, errno: errno) }
    }

    private func header(dataBytes: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) { bytes += Array(text.utf8) }
        func append32(_ value: UInt32) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }
        func append16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let rate = UInt32(AudioFrame.sampleRate), blockAlign = UInt16(channels * 2)
        append("RIFF"); append32(36 &+ dataBytes); append("WAVE")
        append("fmt "); append32(16); append16(1); append16(UInt16(channels)); append32(rate)
        append32(rate * UInt32(blockAlign)); append16(blockAlign); append16(16)
        append("data"); append32(dataBytes)
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws(WAVError) {
        guard let file else { return }
        let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else { throw .writeFailed(path: path, errno: errno) }
    }
}
