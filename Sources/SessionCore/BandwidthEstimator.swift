import RTPWire

/// A receive-side bandwidth estimate for REMB (draft-alvestrand-rmcat-remb-03): what the
/// forwarder's `LayerSelector` reads as the subscriber's available bandwidth.
///
/// **Measurement.** The incoming bitrate is counted over a sliding `windowMilliseconds` window
/// (`ByteRateWindow`, a fixed ring of `bucketCount` buckets; no allocation per packet).
///
/// **Estimate** (updated by `update(lossFraction:nowMilliseconds:)`, e.g. at every report): the
/// loss-based AIMD of `LossBasedRateControl` (draft-ietf-rmcat-gcc-02 §6) with the incoming rate
/// as what got through (on heavy loss, the rate since the previous update if lower): above `highLossFraction` (10 %) it falls to
/// `min(estimate × (1 − loss / 2), incoming)`, below `lowLossFraction` (2 %) it grows by
/// `increasePerSecond` from at least the incoming rate, in between it holds. If
/// `incomingCapRatio` is set, it also stays below that multiple of the incoming rate (libwebrtc
/// uses 1.5 when the sender probes; without probing a cap would stop a subscriber from ever
/// moving up a layer, so the default is no cap). The growth default (25 %/s) is faster than
/// GCC's 8 %/s because simulcast layers are ~3–4× apart and the selector adds its own hysteresis.
///
/// A receiver alone cannot see a link that delivers nothing (no packets, no measured loss); the
/// forwarding node's per-subscriber ceiling from receiver reports covers that case.
///
/// Time is a parameter (milliseconds on any monotonic clock).
public struct BandwidthEstimator: Sendable {
    /// Settings of the estimator.
    public struct Configuration: Sendable, Equatable {
        public var windowMilliseconds: Int64
        public var bucketCount: Int
        /// Start, bounds, growth and loss thresholds of the estimate.
        public var rateControl: LossBasedRateControl.Configuration
        public var incomingCapRatio: Double?

        /// Settings (defaults: 1 s window in 20 buckets, start 300 kbps, 30 kbps…20 Mbps,
        /// +25 %/s under 2 % loss, back-off over 10 %, no incoming-rate cap).
        public init(windowMilliseconds: Int64 = 1000, bucketCount: Int = 20,
                    initialBitsPerSecond: UInt64 = 300_000, minimumBitsPerSecond: UInt64 = 30_000,
                    maximumBitsPerSecond: UInt64 = 20_000_000, increasePerSecond: Double = 0.25,
                    lowLossFraction: Double = 0.02, highLossFraction: Double = 0.10,
                    incomingCapRatio: Double? = nil) {
            self.windowMilliseconds = max(10, windowMilliseconds)
            self.bucketCount = min(max(1, bucketCount), 1000)
            rateControl = LossBasedRateControl.Configuration(
                initialBitsPerSecond: initialBitsPerSecond, minimumBitsPerSecond: minimumBitsPerSecond,
                maximumBitsPerSecond: maximumBitsPerSecond, increasePerSecond: increasePerSecond,
                lowLossFraction: lowLossFraction, highLossFraction: highLossFraction)
            self.incomingCapRatio = incomingCapRatio
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private var incoming: ByteRateWindow
    private var control: LossBasedRateControl
    /// Bytes received since the previous update, and when that was.
    private var bytesSinceUpdate: Int64 = 0
    private var lastUpdateMilliseconds: Int64?

    /// The current estimate in bits per second.
    public var estimateBitsPerSecond: UInt64 { control.bitsPerSecond }

    /// An estimator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        incoming = ByteRateWindow(windowMilliseconds: configuration.windowMilliseconds, bucketCount: configuration.bucketCount)
        control = LossBasedRateControl(configuration: configuration.rateControl)
    }

    /// Counts a received packet of `bytes` octets (whole RTP packet) at `nowMilliseconds`.
    public mutating func packetReceived(bytes: Int, nowMilliseconds: Int64) {
        incoming.add(bytes: bytes, nowMilliseconds: nowMilliseconds)
        bytesSinceUpdate &+= Int64(max(0, bytes))
    }

    /// The incoming bitrate over the window ending at `nowMilliseconds`, bits per second.
    public func incomingBitsPerSecond(nowMilliseconds: Int64) -> UInt64 {
        incoming.bitsPerSecond(nowMilliseconds: nowMilliseconds)
    }

    /// Updates the estimate with the loss fraction (0…1) measured since the previous update.
    /// Returns the new estimate in bits per second.
    @discardableResult
    public mutating func update(lossFraction: Double, nowMilliseconds: Int64) -> UInt64 {
        var rate = incomingBitsPerSecond(nowMilliseconds: nowMilliseconds)
        // On heavy loss what got through is what arrived since the previous update: the window
        // still holds the time before a squeeze (and would move a forwarder down one layer too few).
        if lossFraction > configuration.rateControl.highLossFraction, let last = lastUpdateMilliseconds {
            let elapsed = nowMilliseconds.subtractingReportingOverflow(last)
            if !elapsed.overflow, elapsed.partialValue >= 50, elapsed.partialValue <= configuration.windowMilliseconds {
                rate = min(rate, UInt64(bytesSinceUpdate * 8 * 1000 / elapsed.partialValue))
            }
        }
        (bytesSinceUpdate, lastUpdateMilliseconds) = (0, nowMilliseconds)
        control.update(lossFraction: lossFraction, deliveredBitsPerSecond: rate > 0 ? rate : nil,
                       nowMilliseconds: nowMilliseconds)
        if let ratio = configuration.incomingCapRatio, ratio.isFinite, rate > 0 {
            control.cap(at: UInt64(min(Double(rate) * max(0, ratio) + 10_000, Double(UInt64.max / 2))))
        }
        return estimateBitsPerSecond
    }

    /// A REMB packet carrying the current estimate for `mediaSSRCs`, sent by `senderSSRC`.
    public func rembPacket(senderSSRC: UInt32, mediaSSRCs: [UInt32]) -> ReceiverEstimatedMaxBitrate {
        ReceiverEstimatedMaxBitrate(senderSSRC: senderSSRC, bitrate: estimateBitsPerSecond, ssrcs: mediaSSRCs)
    }
}
