import RTPWire
import SRTP
import Simulcast
import SessionCore

/// Settings of a `ForwardingNode`: the one published track it forwards and how it talks to the
/// publisher.
public struct ForwardingNodeConfiguration: Sendable {
    /// The published layers (for the forwarder's selectors).
    public var plan: LayerPlan
    /// The publisher's SSRC per layer, lightest first.
    public var layerSSRCs: [UInt32]
    /// Keys that unprotect the publisher's SRTP/SRTCP (its `local` keys); nil: plain RTP in.
    public var publisherKeys: SRTPKeyingMaterial?
    /// Keys that protect our SRTCP to the publisher (its `remote` keys); nil: plain RTCP out.
    public var feedbackKeys: SRTPKeyingMaterial?
    /// Where PLIs for the publisher go; nil: learnt from where its media comes from.
    public var publisherRTCPEndpoint: NetworkEndpoint?
    /// Our SSRC as RTCP sender.
    public var localSSRC: UInt32
    /// Plain packets kept per layer, and protected packets kept per subscriber, for NACKs.
    public var historyCapacity: Int
    /// Least time between two key-frame requests for one layer (track-wide).
    public var keyFrameRequestIntervalMilliseconds: Int64
    /// Bandwidth hysteresis of the subscribers' layer selectors.
    public var selector: LayerSelector.Configuration
    /// How the node NACKs the publisher for packets lost on the way in.
    public var upstreamNACK: NACKGenerator.Configuration
    /// The publisher's audio (Opus) SSRC, if it publishes a mic track: those packets are
    /// forwarded to every subscriber consuming the audio as they are (same SSRC, sequence and
    /// timestamp, RFC 6464 level extension untouched), only re-protected. nil: audio is refused
    /// like any unknown SSRC.
    public var audioSSRC: UInt32?
    /// The per-subscriber ceiling that loss in its receiver reports sets on its estimate
    /// (`LossBasedRateControl`; starts at its maximum, so REMB alone rules until loss is seen).
    public var subscriberLossControl: LossBasedRateControl.Configuration
    /// What a subscriber's NACKs may make the node resend to it.
    public var retransmissionBudget: RetransmissionBudget.Configuration
    /// Whether the node tells the publisher when each packet arrived (transport-wide feedback,
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01, every 50 ms), for its send-side
    /// estimate; padding-only probe packets from the publisher count too, then are dropped.
    public var sendsTransportFeedback = false
    /// Where the publisher's packets carry the transport-wide sequence number (the node writes
    /// its own numbers for each subscriber in the same place).
    public var extensionMap = RTPHeaderExtensionMap.defaults
    /// Send-side estimation of each subscriber's downlink (`SubscriberDownlink`): the node
    /// numbers what it sends each subscriber, takes its transport-wide feedback into GCC and
    /// probes with padding on `downlinkProbeSSRC`; that estimate (capped by the subscriber's REMB,
    /// if lower) drives its layer selection and, in a `RoomNode`, its adaptive subscriptions.
    /// nil: REMB and receiver-report loss alone. Needs the publisher's packets to carry a
    /// transport-wide sequence number (the node rewrites it; it never inserts one).
    public var downlinkEstimation: SendSideBandwidthEstimator.Configuration?
    /// When and how hard the node probes a subscriber's downlink.
    public var downlinkProbing = ProbeController.Configuration()
    /// The SSRC of the node's padding-only probe packets (no media ever uses it).
    public var downlinkProbeSSRC: UInt32 = 0x5F0D_0002

    public init(plan: LayerPlan, layerSSRCs: [UInt32], publisherKeys: SRTPKeyingMaterial?,
                feedbackKeys: SRTPKeyingMaterial?, publisherRTCPEndpoint: NetworkEndpoint? = nil,
                localSSRC: UInt32 = 0x5F0D_0001, historyCapacity: Int = 1024,
                keyFrameRequestIntervalMilliseconds: Int64 = 300, selector: LayerSelector.Configuration = .init(),
                upstreamNACK: NACKGenerator.Configuration = .init(maxAgeMilliseconds: 300), audioSSRC: UInt32? = nil,
                subscriberLossControl: LossBasedRateControl.Configuration = .init(initialBitsPerSecond: .max),
                retransmissionBudget: RetransmissionBudget.Configuration = .init()) {
        self.retransmissionBudget = retransmissionBudget
        self.audioSSRC = audioSSRC
        self.subscriberLossControl = subscriberLossControl
        self.plan = plan
        self.layerSSRCs = layerSSRCs
        self.publisherKeys = publisherKeys
        self.feedbackKeys = feedbackKeys
        self.publisherRTCPEndpoint = publisherRTCPEndpoint
        self.localSSRC = localSSRC
        self.historyCapacity = max(16, historyCapacity)
        self.keyFrameRequestIntervalMilliseconds = keyFrameRequestIntervalMilliseconds
        self.selector = selector
        self.upstreamNACK = upstreamNACK
    }
}

/// One subscriber of a `ForwardingNode`: where its stream goes and how it is protected.
public struct ForwardedSubscriberConfiguration: Sendable {
    public var id: String
    /// The SSRC the subscriber receives the track on.
    public var outputSSRC: UInt32
    /// The subscriber's media address; its RTCP must come from there too (RFC 5761 mux).
    public var destination: NetworkEndpoint
    /// Keys protecting what we send it (its `receiveKeys`); nil: plain RTP.
    public var sendKeys: SRTPKeyingMaterial?
    /// Keys unprotecting its SRTCP (its `sendKeys`); nil: plain RTCP.
    public var receiveKeys: SRTPKeyingMaterial?
    public var preference: EffectivePreference

    public init(id: String, outputSSRC: UInt32, destination: NetworkEndpoint, sendKeys: SRTPKeyingMaterial?,
                receiveKeys: SRTPKeyingMaterial?, preference: EffectivePreference = .quality(.high)) {
        self.id = id
        self.outputSSRC = outputSSRC
        self.destination = destination
        self.sendKeys = sendKeys
        self.receiveKeys = receiveKeys
        self.preference = preference
    }
}

/// What a `ForwardingNode` did for one subscriber.
public struct ForwardedSubscriberCounters: Sendable, Equatable {
    /// Media packets and bytes handed to the link (after protection).
    public var packetsSent = 0
    public var bytesSent = 0
    /// RTP payload octets sent (RFC 3550 §6.4.1 sender's octet count).
    public var payloadOctets = 0
    /// Sequence numbers NACKed; answered from the protected history, rebuilt from the
    /// publisher-side history, or no longer available.
    public var nacked = 0
    public var retransmitted = 0
    public var rebuilt = 0
    public var missing = 0
    /// NACKed packets the retransmission budget refused to resend (too soon, too often, over
    /// the share of the media rate).
    public var retransmissionsRefused = 0
    /// NACKs it sent while it was on a TCP connection (ignored: TCP already retransmits).
    public var nacksIgnoredOverStream = 0
    /// PLI/FIR received, REMBs received and the last REMB value.
    public var keyFrameRequestsReceived = 0
    public var rembsReceived = 0
    public var lastREMBBitsPerSecond: UInt64?
    /// The last report block about our stream (loss, jitter as the subscriber sees them).
    public var lastReportBlock: ReportBlockSummary?
    /// RTCP datagrams that failed SRTCP or parsing.
    public var rtcpErrors = 0
    /// Audio packets and bytes (after protection) handed to the link; not in the video counters.
    public var audioPacketsSent = 0
    public var audioBytesSent = 0
    /// With downlink estimation: its transport-wide feedback reports taken; the results in them
    /// dropped (for packets never sent or long forgotten, repeated, malformed reports, or
    /// implausible sizes and times); and the padding packets and bytes that probed its link.
    public var transportFeedbacksReceived = 0
    public var transportFeedbackResultsDropped = 0
    public var probePacketsSent = 0
    public var probeBytesSent = 0

    public init() {}
}

/// The parts of an RR report block (RFC 3550 §6.4.1) a forwarder shows in its stats.
public struct ReportBlockSummary: Sendable, Equatable {
    /// Fraction lost since the previous report, 0...1.
    public var fractionLost: Double
    public var cumulativeLost: Int32
    /// Interarrival jitter in 90 kHz units.
    public var jitter: UInt32
}

/// What a `ForwardingNode` saw from the publisher.
public struct ForwardingNodeCounters: Sendable, Equatable {
    /// RTP packets from the publisher forwarded to the forwarder, RTCP compounds from it.
    public var mediaPackets = 0
    public var publisherRTCP = 0
    /// Key-frame requests (PLI) sent to the publisher.
    public var keyFrameRequestsSent = 0
    /// Generic NACKs sent to the publisher for packets lost on the way in, and the sequence
    /// numbers they asked for.
    public var upstreamNACKsSent = 0
    public var upstreamPacketsRequested = 0
    /// Datagrams that failed SRTP, or were not valid RTP/RTCP/VP8 of the track.
    public var srtpFailures = 0
    public var malformed = 0
    /// Valid-looking publisher packets from an address other than the publisher's (dropped).
    public var foreignSourcePackets = 0
    /// Padding-only packets from the publisher (bandwidth probes): counted for transport-wide
    /// feedback, then dropped; and transport-wide feedback reports sent to it.
    public var paddingPackets = 0
    public var transportFeedbacksSent = 0
    /// Send failures (socket errors).
    public var sendFailures = 0
    /// Audio packets from the publisher (forwarded as they are).
    public var audioPackets = 0

    public init() {}
}
