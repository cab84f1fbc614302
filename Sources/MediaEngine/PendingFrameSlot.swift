import Foundation
import MediaCodecs

/// Where a capture thread leaves camera frames for the engine loop: the newest frame waits, one
/// that is replaced before the loop took it is counted as dropped (the engine paces to the
/// track's frame rate; a faster capture does not queue up).
final class PendingFrameSlot: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var frame: VideoFrame?
    private var droppedCount = 0
    private var pushedCount = 0

    /// Leaves `frame` for the loop, replacing (and counting) one it has not taken yet.
    func put(_ frame: VideoFrame) {
        lock.withLock {
            if self.frame != nil { droppedCount += 1 }
            self.frame = frame
            pushedCount += 1
        }
    }

    /// The waiting frame, if any.
    func take() -> VideoFrame? {
        lock.withLock {
            defer { frame = nil }
            return frame
        }
    }

    /// Frames pushed, and of those replaced before the loop took them.
    var counts: (pushed: Int, dropped: Int) { lock.withLock { (pushedCount, droppedCount) } }
}
