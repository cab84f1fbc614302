#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads I420 frames from a YUV4MPEG2 stream (in memory or a file, read incrementally).
/// Only 4:2:0 streams are accepted (`C420`, `C420jpeg`, `C420paldv`, `C420mpeg2`, or no `C`).
/// Every malformed input is a thrown `Y4MError`.
///
/// Not `Sendable`: it holds a read position (and possibly an open file).
public final class Y4MReader {
    /// The longest header or frame-parameter line accepted.
    static let maximumLineLength = 4096
    /// Bytes read from a file per `fread` while filling a frame.
    static let readChunk = 1 << 20

    /// The parsed stream header.
    public let header: Y4MHeader
    private var source: Source
    private var frameIndex = 0
    /// The file's path, for `.io` errors; nil for an in-memory stream.
    private let path: String?

    private enum Source {
        case memory([UInt8], offset: Int)
        /// An open file and its size when opened (`fstat`), which `skipFrame` seeks within.
        case file(UnsafeMutablePointer<FILE>, size: Int)
    }

    /// Parses the header of an in-memory stream.
    public convenience init(bytes: [UInt8]) throws(Y4MError) {
        try self.init(source: .memory(bytes, offset: 0))
    }

    /// Opens a `.y4m` file and parses its header.
    /// - Throws: `.file` if the path is missing, unreadable, a directory, a device or empty
    ///   (`InputFile`), else the header's errors.
    public convenience init(path: String) throws(Y4MError) {
        let (file, size): (UnsafeMutablePointer<FILE>, Int)
        do { (file, size) = try InputFile.openRegularFile(path) } catch { throw .file(error) }
        do {
            try self.init(source: .file(file, size: size), path: path)
        } catch {
            fclose(file)
            throw error
        }
    }

    private init(source: Source, path: String? = nil) throws(Y4MError) {
        self.source = source
        self.path = path
        var consumed = 0
        guard let line = Self.readLine(&self.source, consumed: &consumed) else {
            if consumed == 0 { throw .empty }
            throw .badHeader(consumed > Self.maximumLineLength ? "header line longer than \(Self.maximumLineLength) bytes"
                                                                : "the header line ends without a newline")
        }
        header = try Y4MHeader.parse(line[...])
    }

    deinit {
        if case .file(let file, _) = source { fclose(file) }
    }

    /// The next frame, or nil at a clean end of stream.
    /// - Throws: `.badFrameHeader` if the frame does not start with `FRAME`, `.truncatedFrame`
    ///   if the stream ends inside the pixels.
    public func nextFrame() throws(Y4MError) -> VideoFrame? {
        guard try startFrame() else { return nil }
        let size = header.frameSize
        let bytes = Self.read(&source, count: size)
        guard bytes.count == size else { throw shortFrame(available: bytes.count) }
        frameIndex += 1
        // Sizes were validated by the header parser and the byte count just checked.
        do {
            return try VideoFrame(packedI420: bytes, width: header.width, height: header.height)
        } catch {
            throw .badHeader("frame size: \(error)")
        }
    }

    /// Moves past the next frame without reading its pixels (a file seeks over them); false at
    /// a clean end of stream.
    /// - Throws: what `nextFrame` would throw for that frame.
    public func skipFrame() throws(Y4MError) -> Bool {
        guard try startFrame() else { return false }
        let skipped = Self.skip(&source, count: header.frameSize)
        guard skipped == header.frameSize else { throw shortFrame(available: skipped) }
        frameIndex += 1
        return true
    }

    /// Reads the next frame's `FRAME` line; false at a clean end of stream.
    private func startFrame() throws(Y4MError) -> Bool {
        var consumed = 0
        guard let line = Self.readLine(&source, consumed: &consumed) else {
            if consumed == 0 && Self.atEnd(&source) { return false }
            throw .badFrameHeader(frameIndex: frameIndex)
        }
        guard line.starts(with: Array("FRAME".utf8)) else { throw .badFrameHeader(frameIndex: frameIndex) }
        return true
    }

    /// Why the current frame's pixels ended after `available` bytes: a failed read, or a stream
    /// cut short.
    private func shortFrame(available: Int) -> Y4MError {
        if case .file(let file, _) = source, ferror(file) != 0 { return .io(path: path ?? "", errno: errno) }
        return .truncatedFrame(frameIndex: frameIndex, needed: header.frameSize, available: available)
    }

    // MARK: - Byte source

    /// Reads up to and excluding the next '\n'; nil if the source ends first (or the line is
    /// too long) — an empty source gives nil too.
    private static func readLine(_ source: inout Source, consumed: inout Int) -> [UInt8]? {
        var line: [UInt8] = []
        while line.count <= maximumLineLength {
            let byte = read(&source, count: 1)
            guard let b = byte.first else { return nil }
            consumed += 1
            if b == UInt8(ascii: "\n") { return line }
            line.append(b)
        }
        return nil
    }

    private static func atEnd(_ source: inout Source) -> Bool {
        switch source {
        case .memory(let bytes, let offset): return offset >= bytes.count
        case .file(let file, _): return feof(file) != 0
        }
    }

    /// Moves up to `count` bytes ahead without reading them; how far it moved (less at the end).
    private static func skip(_ source: inout Source, count: Int) -> Int {
        switch source {
        case .memory(let bytes, let offset):
            let end = offset + min(count, bytes.count - offset)
            source = .memory(bytes, offset: end)
            return end - offset
        case .file(let file, let size):
            let position = Int(ftello(file))
            guard position >= 0 else { return 0 }
            let moved = min(count, max(0, size - position))
            guard fseeko(file, off_t(moved), SEEK_CUR) == 0 else { return 0 }
            return moved
        }
    }

    private static func read(_ source: inout Source, count: Int) -> [UInt8] {
        switch source {
        case .memory(let bytes, let offset):
            let end = min(bytes.count, offset + count)
            source = .memory(bytes, offset: end)
            return Array(bytes[offset..<end])
        case .file(let file, _):
            // Grow with what the file delivers (at most a chunk ahead of it): a short file whose
            // header declares a huge frame must not cost the declared size up front.
            var out: [UInt8] = []
            while out.count < count {
                let start = out.count, wanted = min(count - start, readChunk)
                out.append(contentsOf: repeatElement(0, count: wanted))
                let got = out.withUnsafeMutableBytes { fread($0.baseAddress! + start, 1, wanted, file) }
                guard got == wanted else {
                    out.removeLast(wanted - got)
                    break
                }
            }
            return out
        }
    }
}

extension Y4MReader {
    /// How many frames the Y4M file at `path` holds, found by reading every `FRAME` line and
    /// seeking over the pixels. The one check every tool runs on a Y4M input before it starts
    /// (`simulcast encode`, `demo`, and through `Y4MFileSource` `send`, `publish` and `advise`):
    /// a file that would play part-way and then fail, or play nothing, is refused up front.
    /// - Throws: the errors of `init(path:)`; those `nextFrame` would throw for any frame
    ///   (`.truncatedFrame`, `.badFrameHeader`, `.io`); `.noFrames` for a header alone.
    public static func frameCount(path: String) throws(Y4MError) -> Int {
        let reader = try Y4MReader(path: path)
        var frames = 0
        while try reader.skipFrame() { frames += 1 }
        guard frames > 0 else { throw .noFrames }
        return frames
    }
}
