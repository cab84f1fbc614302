/// A coarse quality level, used both as the publisher's cap (`setWebcamQuality`, docs/sending-caps.md)
/// and as a subscriber's preference (`setQuality`, docs/receiving.md). Ordered low < medium < high.
public enum VideoQuality: Int, Sendable, Comparable, CaseIterable, Codable {
    case low = 0
    case medium = 1
    case high = 2

    public static func < (lhs: VideoQuality, rhs: VideoQuality) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How many simulcast layers a publisher may send (docs/layer-plan.md `maxLayer`).
public enum MaxLayer: Int, Sendable, Codable {
    /// Two layers: on a 3-layer plan the middle one is dropped (1280x720 → 320x180 + 1280x720).
    case two = 2
    /// Up to three layers (the default).
    case three = 3
}
