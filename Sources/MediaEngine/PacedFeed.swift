/// A published track's feed with the cadence its frames leave at: one frame every
/// `intervalMicroseconds`, the first at once. The source is pulled only when a frame is due, so
/// every frame it yields is sent and none is skipped. A loop that falls behind (a tick busy
/// encoding) catches up, one frame per call, as long as it is less than `catchUpMicroseconds`
/// late, so a played source's media time keeps to the wall clock (a receiver's jitter buffer
/// takes the short burst); later than that, the cadence restarts rather than bunching frames up.
/// The caller's clock may be real or virtual (unpaced sending jumps it to the next due frame).
/// Loop-confined.
struct PacedFeed<Frame> {
    let trackId: String
    let feed: TrackFeed<Frame>
    let intervalMicroseconds: Int64
    /// When the next frame is due; nil: now (nothing sent yet).
    private(set) var nextDueMicroseconds: Int64?

    init(trackId: String, feed: TrackFeed<Frame>, intervalMicroseconds: Int64) {
        self.trackId = trackId
        self.feed = feed
        self.intervalMicroseconds = max(1, intervalMicroseconds)
    }

    /// The next frame if one is due at `now`. Frames pushed (no source playing) wait for the
    /// cadence only when `pacingPushes`; otherwise they go as they come.
    mutating func takeDue(at now: Int64, pacingPushes: Bool) -> Frame? {
        if !pacingPushes, !feed.isPlayingSource {
            nextDueMicroseconds = nil
            return feed.take()
        }
        if let due = nextDueMicroseconds, now < due { return nil }
        guard let frame = feed.take() else { return nil }
        let next = (nextDueMicroseconds ?? now) + intervalMicroseconds
        // Behind by less than the catch-up limit: keep the cadence (the next frame may be due at
        // once); more: restart it from now.
        nextDueMicroseconds = now - next < Self.catchUpMicroseconds ? next : now + intervalMicroseconds
        return frame
    }

    /// How far behind the cadence the loop may fall and still catch up (about six audio frames).
    static var catchUpMicroseconds: Int64 { 120_000 }

    /// When a waiting frame (pushed, or the playing source's) is due, as `takeDue` would send
    /// it: at its cadence slot, or at once for pushes that are not paced; nil when none waits.
    func waitingDue(now: Int64, pacingPushes: Bool) -> Int64? {
        guard feed.hasFrames else { return nil }
        if !pacingPushes, !feed.isPlayingSource { return now }
        return max(now, nextDueMicroseconds ?? now)
    }

    /// When the playing source's next frame is due (`now` if at once); nil when no source plays.
    func sourceDue(now: Int64) -> Int64? {
        guard feed.isPlayingSource else { return nil }
        return nextDueMicroseconds ?? now
    }
}
