/// When a publisher next needs its loop though no frame and no feedback came.
extension Publisher {
    /// The earliest of the pacer's next departure (`PacketPacer.nextDepartureMicroseconds`) and
    /// the next bandwidth-probe step (`ProbeController`): what `sendProbesIfDue()` (and so
    /// `pollIncoming`) serves. Sender reports ride on sent media (`sendReportsIfDue` after each
    /// frame), so they set no deadline. Monotonic µs on the send path's clock; `Int64.max`:
    /// nothing is due. A past deadline comes back as is.
    public func nextDeadline() -> Int64 {
        let now = path.clock.monotonicMicroseconds()
        var earliest = Int64.max
        if let departure = path.pacer?.nextDepartureMicroseconds { earliest = departure == .min ? now : departure }
        if let probe = path.congestion?.nextPaddingMilliseconds(nowMilliseconds: now / 1000) {
            earliest = min(earliest, probe * 1000)
        }
        return earliest
    }
}
