import Glibc
import RTPWire

/// A receive-side bandwidth estimate for REMB (draft-alvestrand-rmcat-remb-03): what the
/// forwarder's `LayerSelector` reads as the subscriber's available bandwidth.
///
/// **Measurement.** The incoming bitrate is counted over a sliding `windowMilliseconds` window
/// (fixed ring of `bucketCount` buckets; no allocation per packet). Before a full window has
/// passed, the rate is taken over the time since the first packet.
///
/// **Estimate** (updated by `update(lossFraction:nowMilliseconds:)`, e.g. at every report), a
/// loss-based AIMD in the style of GCC's loss controller (draft-ietf-rmcat-gcc-02 §6):
/// - loss above `highLossFraction` (10 %): the estimate falls to
///   `min(estimate × (1 − loss / 2), incoming)`: never above what actually got through;
/// - loss below `lowLossFraction` (2 %): the estimate grows by `increasePerSecond` (compounded
///   over the time since the last update), starting from at least the incoming rate;
/// - in between: held.
/// The result stays within `minimumBitsPerSecond...maximumBitsPerSecond` and, if
/// `incomingCapRatio` is set, below that multiple of the incoming rate (libwebrtc uses 1.5 when
/// the sender probes; without probing a cap would stop a subscriber from ever moving up a layer,
/// so the default is no cap). The growth default (25 %/s) is faster than GCC's 8 %/s because
/// simulcast layers are ~3–4× apart and the selector adds its own hysteresis.
///
/// Time is a parameter (milliseconds on any monotonic clock).
public struct BandwidthEstimator: Sendable {
    /// Settings of the estimator.
    public struct Configuration: Sendable, Equatable {
        public var windowMilliseconds: Int64
        public var bucketCount: Int
        public var initialBitsPerSecond: UInt64
        public var minimumBitsPerSecond: UInt64
        public var maximumBitsPerSecond: UInt64
        public var increasePerSecond: Double
        public var lowLossFraction: Double
        public var highLossFraction: Double
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
            self.minimumBitsPerSecond = minimumBitsPerSecond
            self.maximumBitsPerSecond = max(minimumBitsPerSecond, maximumBitsPerSecond)
            self.initialBitsPerSecond = min(max(initialBitsPerSecond, minimumBitsPerSecond), self.maximumBitsPerSecond)
            self.increasePerSecond = max(0, increasePerSecond)
            self.lowLossFraction = lowLossFraction
            self.highLossFraction = max(lowLossFraction, highLossFraction)
            self.incomingCapRatio = incomingCapRatio
        }
    }

    /// The settings in use.
    public let configuration: Configuration
    private var bucketBytes: [Int64]
    private var bucketEpochs: [Int64]
    private let bucketMilliseconds: Int64
    private var firstPacketMilliseconds: Int64?
    private var lastUpdateMilliseconds: Int64?
    /// The current estimate in bits per second.
    public private(set) var estimateBitsPerSecond: UInt64

    /// An estimator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        bucketBytes = Array(repeating: 0, count: configuration.bucketCount)
        bucketEpochs = Array(repeating: .min, count: configuration.bucketCount)
        bucketMilliseconds = max(1, configuration.windowMilliseconds / Int64(configuration.bucketCount))
        estimateBitsPerSecond = configuration.initialBitsPerSecond
    }

    private func bucket(for epoch: Int64) -> Int {
        let remainder = Int(epoch % Int64(configuration.bucketCount))
        return remainder < 0 ? remainder + configuration.bucketCount : remainder
    }

    /// Counts a received packet of `bytes` octets (whole RTP packet) at `nowMilliseconds`.
    public mutating func packetReceived(bytes: Int, nowMilliseconds: Int64) {
        if firstPacketMilliseconds == nil { firstPacketMilliseconds = nowMilliseconds }
        let epoch = nowMilliseconds / bucketMilliseconds
        let index = bucket(for: epoch)
        if bucketEpochs[index] != epoch {
            bucketEpochs[index] = epoch
            bucketBytes[index] = 0
        }
        bucketBytes[index] += Int64(max(0, bytes))
    }

    /// The incoming bitrate over the window ending at `nowMilliseconds`, bits per second.
    public func incomingBitsPerSecond(nowMilliseconds: Int64) -> UInt64 {
        guard let first = firstPacketMilliseconds else { return 0 }
        let currentEpoch = nowMilliseconds / bucketMilliseconds
        let oldestEpoch = currentEpoch - Int64(configuration.bucketCount) + 1
        var bytes: Int64 = 0
        for index in 0..<configuration.bucketCount where bucketEpochs[index] >= oldestEpoch && bucketEpochs[index] <= currentEpoch {
            bytes += bucketBytes[index]
        }
        let span = min(configuration.windowMilliseconds, max(bucketMilliseconds, nowMilliseconds - first + bucketMilliseconds))
        return UInt64(max(0, bytes)) * 8 * 1000 / UInt64(span)
    }

    /// Updates the estimate with the loss fraction (0…1) measured since the previous update.
    /// Returns the new estimate in bits per second.
    @discardableResult
    public mutating func update(lossFraction: Double, nowMilliseconds: Int64) -> UInt64 {
        let incoming = Double(incomingBitsPerSecond(nowMilliseconds: nowMilliseconds))
        let elapsed = lastUpdateMilliseconds.map { Double(min(max(0, nowMilliseconds - $0), 2000)) / 1000 } ?? 0
        lastUpdateMilliseconds = nowMilliseconds
        var estimate = Double(estimateBitsPerSecond)
        let loss = lossFraction.isFinite ? min(max(lossFraction, 0), 1) : 0
        if loss > configuration.highLossFraction {
            estimate = estimate * (1 - loss / 2)
            if incoming > 0 { estimate = min(estimate, incoming) }
        } else if loss < configuration.lowLossFraction {
            estimate = max(estimate, incoming)
            estimate *= pow(1 + configuration.increasePerSecond, elapsed)
        }
        if let ratio = configuration.incomingCapRatio, incoming > 0 {
            estimate = min(estimate, incoming * ratio + 10_000)
        }
        let lower = Double(configuration.minimumBitsPerSecond), upper = Double(configuration.maximumBitsPerSecond)
        estimateBitsPerSecond = UInt64(min(max(estimate, lower), upper))
        return estimateBitsPerSecond
    }

    /// A REMB packet carrying the current estimate for `mediaSSRCs`, sent by `senderSSRC`.
    public func rembPacket(senderSSRC: UInt32, mediaSSRCs: [UInt32]) -> ReceiverEstimatedMaxBitrate {
        ReceiverEstimatedMaxBitrate(senderSSRC: senderSSRC, bitrate: estimateBitsPerSecond, ssrcs: mediaSSRCs)
    }
}
