import Foundation

/// Where a track's frames wait for the engine loop: pushed from a capture thread into a bounded
/// queue, or pulled by the loop from an attached source. A push into a full queue drops the
/// oldest frame and counts it (capacity 1 for a camera: the newest frame wins, the engine paces
/// to the frame rate; a few for a mic, whose frames all matter but must not pile up).
final class TrackFeed<Frame>: @unchecked Sendable {
    typealias Source = any MediaFrameSource<Frame>
    /// How a `play(from:)` ended: the source ran out, failed, or the track or engine closed.
    typealias Completion = CheckedContinuation<Void, any Error>

    let capacity: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var queue: [Frame] = []
    private var droppedCount = 0
    private var pushedCount = 0
    private var playedCount = 0
    private var source: Source?
    private var completion: Completion?
    private var attachment = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        queue.reserveCapacity(self.capacity)
    }

    /// Leaves `frame` for the loop (dropping and counting the oldest one waiting if full).
    func put(_ frame: Frame) {
        lock.withLock {
            if queue.count >= capacity {
                queue.removeFirst()
                droppedCount += 1
            }
            queue.append(frame)
            pushedCount += 1
        }
        onPut?()
    }

    /// Called after every `put` and `attach` (the engine wakes its loop), from the calling thread.
    var onPut: (@Sendable () -> Void)? {
        get { lock.withLock { putObserver } }
        set { lock.withLock { putObserver = newValue } }
    }
    // Guarded by `lock`.
    private var putObserver: (@Sendable () -> Void)?

    /// Whether the loop has frames to take: pushed ones waiting, or a source playing.
    var hasFrames: Bool { lock.withLock { !queue.isEmpty || source != nil } }

    /// Whether frames come from a source (paced by the loop) rather than pushes.
    var isPlayingSource: Bool { lock.withLock { source != nil } }

    /// Loop thread: the next frame: from the source if one plays (its end or failure completes
    /// the `play` that attached it), else the oldest pushed one.
    func take() -> Frame? {
        lock.lock()
        guard let source else {
            defer { lock.unlock() }
            return queue.isEmpty ? nil : queue.removeFirst()
        }
        lock.unlock()
        do {
            if let frame = try source.nextFrame() {
                lock.withLock { playedCount += 1 }
                return frame
            }
            finishSource(.success(()))
        } catch {
            finishSource(.failure(error))
        }
        return nil
    }

    /// Attaches `source`; the continuation resumes when it ends. A source already playing is
    /// replaced (its `play` finishes). Returns the attachment's number for `detach`.
    func attach(_ source: Source, completion: Completion) -> Int {
        let (previous, number) = lock.withLock { () -> (Completion?, Int) in
            defer { (self.source, self.completion) = (source, completion) }
            attachment += 1
            return (self.completion, attachment)
        }
        previous?.resume()
        onPut?()  // a source to pull from: the loop schedules its first frame now, not at a later pass
        return number
    }

    /// Ends attachment `number` with `error` if it is still the one playing (a cancelled `play`
    /// must not stop a source attached after it).
    func detach(_ number: Int, with error: any Error) {
        let completion = lock.withLock { () -> Completion? in
            guard attachment == number, let completion = self.completion else { return nil }
            (source, self.completion) = (nil, nil)
            return completion
        }
        completion?.resume(throwing: error)
    }

    /// Ends the playing source (its `play` returns or throws `result`'s error).
    func finishSource(_ result: Result<Void, any Error>) {
        let completion = lock.withLock { () -> Completion? in
            defer { (source, self.completion) = (nil, nil) }
            return self.completion
        }
        completion?.resume(with: result)
    }

    /// Frames pushed, of those dropped before the loop took them, and frames the loop took from
    /// played sources.
    var counts: (pushed: Int, dropped: Int, played: Int) { lock.withLock { (pushedCount, droppedCount, playedCount) } }
}
