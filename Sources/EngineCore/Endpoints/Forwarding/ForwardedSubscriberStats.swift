import Simulcast

/// docs/receiving.md stats of one received track as the forwarding node sees it for one subscriber.
public struct ForwardedSubscriberStats: Sendable, Equatable {
    /// The layer forwarded now; nil until the first key frame (or while disabled).
    public var currentSpatialLayer: Int?
    public var currentTemporalLayer: Int?
    /// What the preference asks for, before bandwidth limits; nil while disabled.
    public var preferredSpatialLayer: Int?
    public var preferredTemporalLayer: Int?
    /// The layer the selector wants now (preference bounded by bandwidth).
    public var target: LayerTarget?
    /// Bits per second sent to the subscriber over the last measurement second (SRTP included).
    public var bitsPerSecond: Int
    /// Codec of the track (docs/receiving.md stats).
    public var codec: String
    /// Size of the forwarded layer; nil until known.
    public var frameWidth: Int?
    public var frameHeight: Int?
    /// From the subscriber's receiver reports (RFC 3550 §6.4.1): cumulative loss, fraction lost
    /// in the last interval (0...1), interarrival jitter in milliseconds.
    public var packetsLost: Int?
    public var fractionLost: Double?
    public var jitterMilliseconds: Double?
    /// Round trip from our sender report to its receiver report (RFC 3550 §6.4.1 LSR/DLSR).
    public var roundTripMilliseconds: Double?
    /// The subscriber's last REMB estimate.
    public var estimatedBitsPerSecond: Int?

    public init(currentSpatialLayer: Int? = nil, currentTemporalLayer: Int? = nil, preferredSpatialLayer: Int? = nil,
                preferredTemporalLayer: Int? = nil, target: LayerTarget? = nil, bitsPerSecond: Int = 0,
                codec: String = "VP8", frameWidth: Int? = nil, frameHeight: Int? = nil, packetsLost: Int? = nil,
                fractionLost: Double? = nil, jitterMilliseconds: Double? = nil, roundTripMilliseconds: Double? = nil,
                estimatedBitsPerSecond: Int? = nil) {
        self.currentSpatialLayer = currentSpatialLayer
        self.currentTemporalLayer = currentTemporalLayer
        self.preferredSpatialLayer = preferredSpatialLayer
        self.preferredTemporalLayer = preferredTemporalLayer
        self.target = target
        self.bitsPerSecond = bitsPerSecond
        self.codec = codec
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.packetsLost = packetsLost
        self.fractionLost = fractionLost
        self.jitterMilliseconds = jitterMilliseconds
        self.roundTripMilliseconds = roundTripMilliseconds
        self.estimatedBitsPerSecond = estimatedBitsPerSecond
    }
}
