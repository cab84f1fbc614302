/// Whether media flowed lately, for a backend's next deadline (`RoomBackend.nextDeadline`): a
/// count of what it sent and received, noted after each pass; while it keeps changing, and for
/// `RoomBackendCadence.activityHoldMicroseconds` after, the backend is served at the active grain
/// (pacing, NACK and jitter-buffer timers), else at the idle one (RTCP reports, consent checks).
struct ActivityHold {
    private var countSeen = 0
    private var activeUntilMicroseconds: Int64 = 0

    /// Notes the backend's running count of media sent and received at `now`.
    mutating func note(_ count: Int, now: Int64) {
        guard count != countSeen else { return }
        countSeen = count
        activeUntilMicroseconds = now + RoomBackendCadence.activityHoldMicroseconds
    }

    /// When the backend's next pass is due by its timers alone.
    func nextPass(now: Int64) -> Int64 {
        now + (now < activeUntilMicroseconds ? RoomBackendCadence.activeMicroseconds : RoomBackendCadence.idleMicroseconds)
    }
}
