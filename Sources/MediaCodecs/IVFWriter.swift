#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds an IVF file (the simple container libvpx's tools use): a 32-byte header
/// (`DKIF`, version 0, header size 32, fourcc `VP80`, width, height, timebase denominator and
/// numerator, frame count) followed by each frame with a 12-byte header (size, 64-bit
/// timestamp), all little-endian. It builds the file in memory (`bytes`); `IVFFileWriter`
/// writes the same bytes to disk as frames arrive, for streams of any length.
public struct IVFWriter: Sendable {
    /// Picture size written in the header.
    public let width: Int
    /// Picture size written in the header.
    public let height: Int
    /// Timestamps count in units of `timebaseNumerator / timebaseDenominator` seconds.
    public let timebaseNumerator: UInt32
    /// See `timebaseNumerator`.
    public let timebaseDenominator: UInt32
    /// The file so far: the header (with the current frame count) and every frame.
    public private(set) var bytes: [UInt8]
    /// Frames appended so far (also stored in the header).
    public private(set) var frameCount: UInt32 = 0

    /// - Parameters: the picture size (16-bit fields) and timebase (default 1/30 s, so a frame
    ///   index is a timestamp; pass 1/90000 to store RTP timestamps).
    public init(width: Int, height: Int, timebaseNumerator: UInt32 = 1, timebaseDenominator: UInt32 = 30) {
        self.width = width
        self.height = height
        self.timebaseNumerator = timebaseNumerator
        self.timebaseDenominator = timebaseDenominator
        bytes = []
        bytes.reserveCapacity(1 << 16)
        Self.appendFileHeader(to: &bytes, width: width, height: height, timebaseNumerator: timebaseNumerator,
                              timebaseDenominator: timebaseDenominator, frameCount: 0)
    }

    /// Appends one encoded frame with its timestamp (in timebase units).
    public mutating func append(frame: [UInt8], timestamp: UInt64) {
        Self.appendFrameHeader(to: &bytes, frameSize: frame.count, timestamp: timestamp)
        bytes += frame
        frameCount &+= 1
        for i in 0..<4 { bytes[Self.frameCountOffset + i] = UInt8(truncatingIfNeeded: frameCount >> (8 * UInt32(i))) }
    }

    /// Where the 16-bit width and height sit in the file header.
    static let pictureSizeOffset = 12
    /// Where the 32-bit frame count sits in the file header.
    static let frameCountOffset = 24

    /// The 32-byte file header: `DKIF`, version 0, header size 32, `VP80`, size, timebase, frame count.
    static func appendFileHeader(to out: inout [UInt8], width: Int, height: Int, timebaseNumerator: UInt32,
                                 timebaseDenominator: UInt32, frameCount: UInt32) {
        out += Array("DKIF".utf8)
        append16(&out, 0)            // version
        append16(&out, 32)           // header size
        out += Array("VP80".utf8)
        append16(&out, UInt16(truncatingIfNeeded: width))
        append16(&out, UInt16(truncatingIfNeeded: height))
        append32(&out, timebaseDenominator)
        append32(&out, timebaseNumerator)
        append32(&out, frameCount)
        append32(&out, 0)            // unused
    }

    /// The 12-byte frame header: payload size, then the 64-bit timestamp.
    static func appendFrameHeader(to out: inout [UInt8], frameSize: Int, timestamp: UInt64) {
        append32(&out, UInt32(truncatingIfNeeded: frameSize))
        append32(&out, UInt32(truncatingIfNeeded: timestamp))
        append32(&out, UInt32(truncatingIfNeeded: timestamp >> 32))
    }

    static func append16(_ out: inout [UInt8], _ value: UInt16) {
        out.append(UInt8(truncatingIfNeeded: value))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    static func append32(_ out: inout [UInt8], _ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Writes `bytes` to `path` (created or truncated).
    public func write(toFile path: String) throws(IVFError) {
        guard let file = fopen(path, "wb") else { throw .io(path: path, errno: errno) }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let writeErrno = errno
        let closed = fclose(file)
        guard written == bytes.count else { throw .io(path: path, errno: writeErrno) }
        guard closed == 0 else { throw .io(path: path, errno: errno) }
    }
}
