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

    /// Plays `source` into `feed` until it ends (see `LocalVideoTrack.play(from:)`). Cancelling
    /// the calling task detaches the source and throws `EngineError.cancelled`.
    func play<Frame>(_ source: sending any MediaFrameSource<Frame>, on feed: TrackFeed<Frame>,
                     trackId: String) async throws(EngineError) {
        guard !isClosed else { throw .closed("\(kind) track \(trackId)") }
        let attachment = AttachmentNumber()
        let cancelled = EngineError.cancelled("playing into \(kind) track \(trackId)")
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: TrackFeed<Frame>.Completion) in
                    let number = feed.attach(source, completion: continuation)
                    attachment.set(number)
                    // Cancelled before the handler could see the attachment: detach here.
                    if Task.isCancelled { feed.detach(number, with: cancelled) }
                }
            } onCancel: {
                if let number = attachment.value { feed.detach(number, with: cancelled) }
            }
        } catch let error as EngineError {
            throw error
        } catch {
            throw .invalidFrame("\(kind) source of \(trackId): \(error)")
        }
    }
}

/// The number `TrackFeed.attach` gave a `play`, read by its cancellation handler.
private final class AttachmentNumber: @unchecked Sendable {
    private let lock = NSLock()
    private var number: Int?

    func set(_ number: Int) { lock.withLock { self.number = number } }
    var value: Int? { lock.withLock { number } }
}
