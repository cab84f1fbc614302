import Glibc
import RTPWire

/// A classic pcap file (via `PcapWriter`) on disk, written in chunks: records are appended to a
/// reused buffer and flushed with `write(2)` every `flushThreshold` bytes and on `close()`.
public final class PcapFile {
    public let path: String
    private let descriptor: Int32
    private let writer = PcapWriter()
    private var buffer: [UInt8] = []
    private let flushThreshold = 256 * 1024
    private var closed = false
    /// Records written so far.
    public private(set) var records = 0

    /// Creates (truncates) `path` and writes the file header.
    public init(path: String) throws(PublisherError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw .file(path: path, errno: errno) }
        self.path = path
        descriptor = fd
        buffer.reserveCapacity(flushThreshold + 2048)
        writer.writeFileHeader(into: &buffer)
    }

    deinit {
        try? close()
    }

    /// Appends one UDP datagram record.
    public func record(_ payload: UnsafeRawBufferPointer, from source: NetworkEndpoint, to destination: NetworkEndpoint,
                       unixMicroseconds: UInt64) throws(PublisherError) {
        let timestamp = PcapTimestamp(seconds: UInt32(truncatingIfNeeded: unixMicroseconds / 1_000_000),
                                      nanoseconds: UInt32(unixMicroseconds % 1_000_000) * 1000)
        guard let sourceIPv4 = source.ipv4, let destinationIPv4 = destination.ipv4 else {
            throw .invalidConfiguration("recording \(source) → \(destination): the capture file holds IPv4 datagrams only")
        }
        do {
            try writer.writeUDP(ArraySlice(payload.bindMemory(to: UInt8.self)),
                                from: IPv4Address(sourceIPv4), port: source.port,
                                to: IPv4Address(destinationIPv4), port: destination.port,
                                at: timestamp, into: &buffer)
        } catch {
            throw .wire(error)
        }
        records += 1
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Writes buffered records to disk.
    public func flush() throws(PublisherError) {
        guard !closed else { return }
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            guard written > 0 else {
                if written < 0 && errno == EINTR { continue }
                throw .file(path: path, errno: errno)
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file (idempotent).
    public func close() throws(PublisherError) {
        guard !closed else { return }
        defer {
            Glibc.close(descriptor)
            closed = true
        }
        try flush()
    }
}
