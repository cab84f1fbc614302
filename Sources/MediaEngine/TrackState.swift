import Foundation

/// A local track's published/closed state, shared by capture threads and callers.
final class TrackState: @unchecked Sendable {
    /// "camera" or "microphone", for errors.
    let kind: String
    private let lock = NSLock()
    private var published = false
    private var closed = false

    init(kind: String) {
        self.kind = kind
    }

    var isClosed: Bool { lock.withLock { closed } }
    var isPublished: Bool { lock.withLock { published } }

    func publish(_ id: String) throws(EngineError) {
        let result = lock.withLock { () -> EngineError? in
            if closed { return .closed("\(kind) track \(id)") }
            if published { return .alreadyPublished(kind) }
            published = true
            return nil
        }
        if let result { throw result }
    }

    func unpublish() { lock.withLock { published = false } }
    func close() { lock.withLock { closed = true } }

    /// Plays `source` into `feed` until it ends (see `LocalVideoTrack.play(from:)`).
    func play<Frame>(_ source: sending any MediaFrameSource<Frame>, on feed: TrackFeed<Frame>,
                     trackId: String) async throws(EngineError) {
        guard !isClosed else { throw .closed("\(kind) track \(trackId)") }
        do {
            try await withCheckedThrowingContinuation { (continuation: TrackFeed<Frame>.Completion) in
                feed.attach(source, completion: continuation)
            }
        } catch let error as EngineError {
            throw error
        } catch {
            throw .invalidFrame("\(kind) source of \(trackId): \(error)")
        }
    }
}
