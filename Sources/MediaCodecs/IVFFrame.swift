/// One frame read from an IVF file: its payload and its timestamp in timebase units.
public struct IVFFrame: Sendable, Equatable {
    /// The codec payload (a VP8 frame).
    public var data: [UInt8]
    /// Presentation timestamp, in units of the file's timebase.
    public var timestamp: UInt64

    /// A frame with the given payload and timestamp.
    public init(data: [UInt8], timestamp: UInt64) {
        self.data = data
        self.timestamp = timestamp
    }
}
