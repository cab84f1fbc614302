#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an IVF file (the same bytes as `IVFWriter`) straight to disk, frame by frame, so
/// memory stays flat however long the stream: each frame goes through stdio's buffer to the
/// file, and the header's frame count is written when the file is closed (`close()`; `deinit`
/// closes too, but only `close()` reports a failure).
///
/// Not `Sendable`: it owns an open `FILE*`; use it from one thread.
public final class IVFFileWriter {
    /// The path given to `init`.
    public let path: String
    /// Picture size written in the header (`setPictureSize` changes it until `close()`).
    public private(set) var width: Int
    /// Picture size written in the header (`setPictureSize` changes it until `close()`).
    public private(set) var height: Int
    /// Frames appended so far (written into the header by `close()`).
    public private(set) var frameCount: UInt32 = 0
    /// Bytes written so far, headers included.
    public private(set) var byteCount = 0
    private var file: UnsafeMutablePointer<FILE>?
    /// Reused for each 12-byte frame header: no allocation per frame.
    private var frameHeader: [UInt8] = []

    /// Creates (or truncates) `path` and writes the file header with a frame count of 0.
    /// - Parameters: the picture size (16-bit fields) and timebase (default 1/30 s, so a frame
    ///   index is a timestamp; pass 1/90000 to store RTP timestamps).
    /// - Throws: `IVFError.io` with `fopen`'s or `fwrite`'s errno.
    public init(path: String, width: Int, height: Int, timebaseNumerator: UInt32 = 1,
                timebaseDenominator: UInt32 = 30) throws(IVFError) {
        self.path = path
        self.width = width
        self.height = height
        guard let file = fopen(path, "wb") else { throw .io(path: path, errno: errno) }
        self.file = file
        frameHeader.reserveCapacity(32)
        var header: [UInt8] = []
        IVFWriter.appendFileHeader(to: &header, width: width, height: height, timebaseNumerator: timebaseNumerator,
                                   timebaseDenominator: timebaseDenominator, frameCount: 0)
        try write(header)
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Appends one encoded frame with its timestamp (in timebase units).
    /// - Throws: `IVFError.io` if the write fails or the file was closed.
    public func append(frame: [UInt8], timestamp: UInt64) throws(IVFError) {
        frameHeader.removeAll(keepingCapacity: true)
        IVFWriter.appendFrameHeader(to: &frameHeader, frameSize: frame.count, timestamp: timestamp)
        try write(frameHeader)
        try write(frame)
        frameCount &+= 1
    }

    /// The picture size `close()` writes into the header, for a writer that learns it from the
    /// stream (a recording of received frames: the first key frame's size) rather than up front.
    public func setPictureSize(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Writes the picture size and the frame count into the header and closes the file. Calling
    /// it again does nothing.
    /// - Throws: `IVFError.io` if seeking, writing or closing fails.
    public func close() throws(IVFError) {
        guard let file else { return }
        self.file = nil
        var size: [UInt8] = []
        IVFWriter.append16(&size, UInt16(truncatingIfNeeded: width))
        IVFWriter.append16(&size, UInt16(truncatingIfNeeded: height))
        var count: [UInt8] = []
        IVFWriter.append32(&count, frameCount)
        let patched = fseek(file, IVFWriter.pictureSizeOffset, SEEK_SET) == 0
            && size.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == size.count
            && fseek(file, IVFWriter.frameCountOffset, SEEK_SET) == 0
            && count.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == count.count
        let patchErrno = errno
        let closed = fclose(file) == 0
        guard patched else { throw .io(path: path, errno: patchErrno) }
        guard closed else { throw .io(path: path, errno: errno) }
    }

    private func write(_ bytes: [UInt8]) throws(IVFError) {
        guard let file else { throw .io(path: path, errno: EBADF) }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else { throw .io(path: path, errno: errno) }
        byteCount += written
    }
}
