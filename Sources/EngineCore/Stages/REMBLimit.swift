import RTPWire

/// The REMB reading stage (draft-alvestrand-rmcat-remb-03 §2): the receiver's estimate of what
/// it can take, as the latest REMB about our streams said it, and how many arrived.
struct REMBLimit {
    /// REMBs taken.
    private(set) var received = 0
    /// The latest REMB's bitrate, bits per second; nil before the first.
    private(set) var bitsPerSecond: UInt64?

    /// Takes `remb` if it names one of `ssrcs` or no SSRC at all (it then covers every stream);
    /// returns whether it did.
    mutating func take(_ remb: ReceiverEstimatedMaxBitrate, about ssrcs: some Sequence<UInt32>) -> Bool {
        guard remb.ssrcs.isEmpty || ssrcs.contains(where: { remb.ssrcs.contains($0) }) else { return false }
        take(remb)
        return true
    }

    /// Takes `remb` whatever it names.
    mutating func take(_ remb: ReceiverEstimatedMaxBitrate) {
        received += 1
        bitsPerSecond = remb.bitrate
    }
}
