/// A fixed set of datagram buffers the receive path reads into, unprotects in place (libsrtp
/// `srtp_unprotect` works in place) and parses without copying: the packets it hands on (the
/// jitter buffer's, the frame assembler's, the audio jitter buffer's) are slices of the buffer
/// they arrived in, and keep it referenced until their frame is assembled or dropped. A buffer
/// nobody references any more is handed out again; no buffer is allocated per packet.
///
/// When every buffer is still held (a long run of loss keeps incomplete frames waiting), the
/// next one is handed out anyway: writing into it copies it first (Swift's copy on write), so
/// the packets holding the old bytes keep them, and that packet costs one allocation
/// (`exhaustions` counts them). Correctness never depends on the uniqueness check.
struct ReceiveBufferPool {
    private var buffers: [[UInt8]]
    private var cursor = 0
    /// The buffer handed out last.
    private var taken = 0
    /// How many buffers `acquire` looks at before giving up on finding a free one.
    private let searchLimit: Int
    /// Times no free buffer was found among `searchLimit` candidates.
    private(set) var exhaustions: Int64 = 0

    /// `count` buffers of `bufferSize` bytes each (allocated now, once).
    init(count: Int, bufferSize: Int, searchLimit: Int = 8) {
        buffers = (0..<max(1, count)).map { _ in [UInt8](repeating: 0, count: bufferSize) }
        self.searchLimit = max(1, min(searchLimit, buffers.count))
    }

    /// Moves a free buffer out of the pool (the caller receives into it and gives it back with
    /// `giveBack(_:)` before the next `take()`); the oldest handed-out one when none is free.
    mutating func take() -> [UInt8] {
        // The last one first: a packet nothing kept (audio, whose jitter buffer copies, RTCP, a
        // dropped packet) leaves it free and still in the cache.
        if Self.isUnshared(&buffers[taken]) {
            let buffer = buffers[taken]
            buffers[taken] = []
            return buffer
        }
        var chosen = cursor
        var found = false
        for step in 0..<searchLimit {
            let index = (cursor &+ step) % buffers.count
            if Self.isUnshared(&buffers[index]) {
                chosen = index
                found = true
                break
            }
        }
        if !found { exhaustions += 1 }
        cursor = (chosen &+ 1) % buffers.count
        let buffer = buffers[chosen]
        buffers[chosen] = []  // the caller's copy is now the pool's only reference
        taken = chosen
        return buffer
    }

    /// Puts the buffer `take()` handed out back in its place (packets may still slice it).
    mutating func giveBack(_ buffer: [UInt8]) {
        buffers[taken] = buffer
    }

    /// Whether no other array or slice shares `buffer`'s storage. An `Array` is one reference
    /// to its storage object on this platform (no Objective-C bridging), so the storage is
    /// moved into an object reference, checked with `isKnownUniquelyReferenced`, and moved back.
    private static func isUnshared(_ buffer: inout [UInt8]) -> Bool {
        guard !buffer.isEmpty else { return false }
        var storage = unsafeBitCast(buffer, to: AnyObject.self)
        buffer = []
        let unshared = isKnownUniquelyReferenced(&storage)
        buffer = unsafeBitCast(storage, to: [UInt8].self)
        return unshared
    }
}
