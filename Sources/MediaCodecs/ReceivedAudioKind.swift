/// How a 20 ms block of received audio was produced (RFC 6716's two loss tools beside plain
/// decoding).
public enum ReceivedAudioKind: Sendable, Equatable {
    /// Decoded from the packet that carried it.
    case decoded
    /// Rebuilt from the in-band FEC of the packet after it (RFC 6716 §2.1.7).
    case recoveredFromFEC
    /// Extrapolated by Opus packet-loss concealment.
    case concealed
}
