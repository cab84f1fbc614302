/// Reads an in-memory IVF file (see `IVFWriter`): header fields, then frames one by one.
/// Every malformed input is a thrown `IVFError`, never a trap.
public struct IVFReader: Sendable {
    /// The four-character codec code, e.g. `VP80`.
    public let fourcc: String
    /// Picture size from the header.
    public let width: Int
    /// Picture size from the header.
    public let height: Int
    /// Timebase: timestamps count in `timebaseNumerator / timebaseDenominator` seconds.
    public let timebaseNumerator: UInt32
    /// See `timebaseNumerator`.
    public let timebaseDenominator: UInt32
    /// The frame count the header claims (writers may leave it 0).
    public let declaredFrameCount: UInt32
    private let bytes: [UInt8]
    private var offset: Int

    /// Reads an IVF file (a non-empty regular file; `InputFile.readAll`'s size limit) and parses
    /// its header.
    /// - Throws: `.file` if the path cannot be read as a file, else the format's errors.
    public init(path: String) throws(IVFError) {
        let bytes: [UInt8]
        do { bytes = try InputFile.readAll(path) } catch { throw .file(error) }
        try self.init(bytes: bytes)
    }

    /// Parses the 32-byte file header.
    public init(bytes: [UInt8]) throws(IVFError) {
        guard bytes.count >= 32 else { throw .truncated(field: "file header", needed: 32, available: bytes.count) }
        guard bytes.starts(with: Array("DKIF".utf8)) else { throw .badSignature }
        let headerSize = Int(Self.u16(bytes, 6))
        guard headerSize >= 32 else { throw .badSignature }
        guard bytes.count >= headerSize else {
            throw .truncated(field: "file header", needed: headerSize, available: bytes.count)
        }
        fourcc = String(decoding: bytes[8..<12], as: UTF8.self)
        width = Int(Self.u16(bytes, 12))
        height = Int(Self.u16(bytes, 14))
        timebaseDenominator = Self.u32(bytes, 16)
        timebaseNumerator = Self.u32(bytes, 20)
        declaredFrameCount = Self.u32(bytes, 24)
        self.bytes = bytes
        offset = headerSize
    }

    /// The next frame, or nil at the end of the file.
    public mutating func nextFrame() throws(IVFError) -> IVFFrame? {
        let available = bytes.count - offset
        guard available > 0 else { return nil }
        guard available >= 12 else { throw .truncated(field: "frame header", needed: 12, available: available) }
        let size = Int(Self.u32(bytes, offset))
        let timestamp = UInt64(Self.u32(bytes, offset + 4)) | UInt64(Self.u32(bytes, offset + 8)) << 32
        guard available - 12 >= size else {
            throw .truncated(field: "frame data", needed: size, available: available - 12)
        }
        let start = offset + 12
        offset = start + size
        return IVFFrame(data: Array(bytes[start..<start + size]), timestamp: timestamp)
    }

    private static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
