import MediaEngine

/// A received video's decoded frames as they arrive: how many, and when the first one came.
final class FrameWatch: @unchecked Sendable {
    private let lock = NSLockLike()
    private var count = 0
    private var first: ContinuousClock.Instant?
    private var task: Task<Void, Never>?

    init(_ remote: RemoteVideoTrack) {
        task = Task { [self] in
            for await _ in remote.frames {
                lock.run {
                    count += 1
                    if first == nil { first = .now }
                }
            }
        }
    }

    var frames: Int { lock.run { count } }
    var firstFrameAt: ContinuousClock.Instant? { lock.run { first } }

    /// Sleeps (never blocks) until `frames` frames have arrived or `seconds` have passed; whether they did.
    func wait(forFrames frames: Int, within seconds: Double) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while self.frames < frames, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return self.frames >= frames
    }
}
