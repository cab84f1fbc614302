/// Pixel layouts accepted from callers (capture devices, files). Frames are stored as I420.
public enum PixelFormat: Sendable, Equatable, CaseIterable {
    /// Planar 4:2:0: Y plane, then U (Cb) and V (Cr) planes at half size (rounded up).
    case i420
    /// Semi-planar 4:2:0: Y plane, then one plane of interleaved U,V pairs.
    case nv12
    /// Packed 32-bit, bytes B,G,R,A in memory (libyuv calls this "ARGB", naming the
    /// little-endian word).
    case bgra
}
