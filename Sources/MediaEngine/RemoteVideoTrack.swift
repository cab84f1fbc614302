internal import EngineCore
import Simulcast

/// docs/receiving.md stats of one received video.
public struct RemoteVideoStats: Sendable, Hashable {
    public var currentSpatialLayer: Int?
    public var preferredSpatialLayer: Int?
    public var currentTemporalLayer: Int?
    public var preferredTemporalLayer: Int?
    /// What the forwarder sends this subscriber, bits per second.
    public var bitsPerSecond: Int
    public var codec: String
    /// The size of the last decoded frame.
    public var frameSize: VideoSize?
    public var roundTripMilliseconds: Double?
    public var jitterMilliseconds: Double
    public var packetsLost: Int
    public var framesDecoded: Int
    /// Frames the decoder rejected (W3C webrtc-stats has no such counter; 0 on a clean call).
    public var decoderErrors: Int
    /// Freezes (as W3C webrtc-stats `freezeCount`, with a fixed threshold: no decoded frame for
    /// more than 500 ms), a freeze still going on when the stats are read included; the longest
    /// one, ms (0 exactly when the count is 0).
    public var freezeCount: Int
    public var longestFreezeMilliseconds: Int
    /// NACKs sent, and packets that arrived after one (webrtc-stats `nackCount`, retransmissions).
    public var nackCount: Int
    public var packetsRecovered: Int
    public var bytesReceived: Int
    /// The fraction lost in the subscriber's last receiver report (RFC 3550 §6.4.1), 0...1.
    public var fractionLost: Double?
    /// The downlink estimate the forwarder selects layers against (REMB or loss-based), bps.
    public var availableBitsPerSecond: Int?
    /// With E2EE: frames end-to-end decryption refused (wrong or missing key, altered,
    /// replayed); none of them reached the decoder.
    public var framesUndecryptable: Int
    /// How this video reaches the participant now (nil: UDP not confirmed yet), and after how
    /// long it moved to TCP if it did (`PreferredProtocol.udpOverTCP`).
    public var transportProtocol: TransportProtocol? = nil
    public var protocolSwitchMilliseconds: Int64? = nil
    /// In a Janus room: the ICE candidate pair the subscriber peer connection carrying this video
    /// runs on (RFC 8445 §7.2.5.3.2; nil before it connected, and in a hosted room, where
    /// `transportProtocol` tells the path).
    public var selectedCandidatePair: SelectedCandidatePair? = nil

    /// Through a hosted room's forwarding node: the layers and rates the node reports.
    init(forwarded: ForwardedSubscriberStats, received: VideoReceiverStatistics) {
        self.init(received: received)
        currentSpatialLayer = forwarded.currentSpatialLayer
        preferredSpatialLayer = forwarded.preferredSpatialLayer
        currentTemporalLayer = forwarded.currentTemporalLayer
        preferredTemporalLayer = forwarded.preferredTemporalLayer
        bitsPerSecond = forwarded.bitsPerSecond
        roundTripMilliseconds = forwarded.roundTripMilliseconds
        fractionLost = forwarded.fractionLost
        availableBitsPerSecond = forwarded.estimatedBitsPerSecond
    }

    /// What the receiver measured alone (through an SFU that reports nothing to us): the rate
    /// arriving and the receiver's own estimate; the layers are the ones asked for.
    init(received: VideoReceiverStatistics, preferredSpatialLayer: Int? = nil, preferredTemporalLayer: Int? = nil) {
        self.preferredSpatialLayer = preferredSpatialLayer
        self.preferredTemporalLayer = preferredTemporalLayer
        bitsPerSecond = Int(received.incomingBitsPerSecond)
        codec = "VP8"
        frameSize = received.frameWidth > 0 ? VideoSize(width: received.frameWidth, height: received.frameHeight) : nil
        jitterMilliseconds = received.jitterMilliseconds
        packetsLost = Int(received.packetsLost)
        framesDecoded = Int(received.framesDecoded)
        decoderErrors = Int(received.decoderErrors)
        freezeCount = received.freezeCount
        longestFreezeMilliseconds = Int(received.longestFreezeMilliseconds)
        nackCount = Int(received.nackRequests)
        packetsRecovered = Int(received.packetsRecovered)
        bytesReceived = Int(received.bytesReceived)
        availableBitsPerSecond = received.bandwidthEstimateBitsPerSecond > 0 ? Int(received.bandwidthEstimateBitsPerSecond) : nil
        framesUndecryptable = Int(received.framesUndecryptable)
    }
}

/// Another participant's camera or screen share as this participant receives it (LiveKit's
/// `RemoteTrackPublication` + track): choose the webcam's layer with `setQuality` or
/// `setViewPort` (the last call wins, docs/receiving.md) and the screen share's with
/// `setScreenShareQuality` (docs/joining-a-room.md), read decoded frames from `frames`. `Sendable`.
public final class RemoteVideoTrack: Sendable {
    /// Whose video.
    public let publisherId: String
    /// Which of the publisher's videos: its camera or its screen share.
    public let source: VideoContent
    /// Decoded frames, in order (the newest 4 wait when nobody reads), each with its
    /// presentation time (`VideoFrame.rtpTimestamp`, `senderTimeMicroseconds`: docs/receiving.md).
    /// One reader: an `AsyncStream` serves a single iterating task (a second concurrent one
    /// traps in the standard library); an app that renders and records reads once and hands
    /// each frame on.
    public let frames: AsyncStream<VideoFrame>
    let subscriberId: String
    let roomId: String
    let loop: any EngineScheduler
    /// The room's key for this video (`publisherId`, or its screen-share key).
    let publisherKey: String

    init(publisherId: String, source: VideoContent = .camera, subscriberId: String, roomId: String,
         frames: AsyncStream<VideoFrame>, loop: any EngineScheduler) {
        self.publisherId = publisherId
        self.source = source
        publisherKey = source == .screen ? RoomNode.screenShareKey(of: publisherId) : publisherId
        self.subscriberId = subscriberId
        self.roomId = roomId
        self.frames = frames
        self.loop = loop
    }

    /// `.high` the top layer, `.low` the lowest, `.medium` the largest no bigger than half the
    /// top (one layer lower in an `.sd` room). The webcam only (docs/joining-a-room.md): on a screen-share track
    /// it is `.notAllowed`; use `setScreenShareQuality`.
    public func setQuality(_ quality: VideoQuality) async throws(EngineError) {
        try await setPreference(.quality(quality))
    }

    /// The smallest layer that covers `width`x`height` (the top one if none does). The webcam
    /// only, like `setQuality`.
    public func setViewPort(width: Int, height: Int) async throws(EngineError) {
        guard width > 0, height > 0 else { throw .invalidConfiguration("viewport \(width)x\(height)") }
        try await setPreference(.viewPort(VideoSize(width: width, height: height)))
    }

    /// docs/joining-a-room.md: the layer of this publisher's screen share, from the same values as `setQuality`
    /// (`.high` full resolution, `.medium` and `.low` the half-resolution layer of a two-layer
    /// share), independent of the webcam's layer. Callable on either of the publisher's tracks.
    /// - Returns: the layer now preferred, or `.singleLayer` when the share has one layer and
    ///   nothing changed.
    @discardableResult
    public func setScreenShareQuality(_ quality: VideoQuality) async throws(EngineError) -> ScreenShareQualityChange {
        let (roomId, subscriberId, publisherId) = (roomId, subscriberId, publisherId)
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            return try room.setScreenShareQuality(quality, subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// Stops receiving this video without leaving (LiveKit's `setSubscribed(false)`, the seeds'
    /// `stopConsumingWebcamStreams`): the room stops sending it to this participant (a hosted
    /// room's node stops forwarding it, a Janus room unsubscribes its stream with `update`),
    /// a recording finishes and `frames` ends. `subscribe(to:)` (or `subscribe(toScreenShareOf:)`)
    /// receives it again as a new track. Idempotent; a closed room has nothing left to stop.
    public func stopConsuming() async {
        let kind: PublishedTrackKind = source == .screen ? .screenShare : .camera
        let (roomId, subscriberId, publisherId) = (roomId, subscriberId, publisherId)
        _ = try? await loop.perform { runtime throws(EngineError) in
            runtime.rooms[roomId]?.stopConsuming(kind, subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// docs/adaptive-subscriptions.md: a pinned video is paused last when this participant's downlink is squeezed.
    public func setPinned(_ pinned: Bool) async throws(EngineError) {
        try await onRoom { room, subscriberId, publisherId throws(EngineError) in
            try room.setPinned(pinned, subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// Writes what arrives (the assembled VP8 frames, before decoding) to an IVF file at `path`
    /// until `stopRecording` or the end of the subscription; a running recording is finished first.
    public func startRecording(ivfPath path: String) async throws(EngineError) {
        try await onRoom { room, subscriberId, publisherId throws(EngineError) in
            try room.startRecording(subscriber: subscriberId, publisher: publisherId, path: path)
        }
    }

    /// Finishes the recording (the file is complete when this returns).
    public func stopRecording() async throws(EngineError) {
        try await onRoom { room, subscriberId, publisherId throws(EngineError) in
            try room.stopRecording(subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// docs/receiving.md stats.
    public func stats() async throws(EngineError) -> RemoteVideoStats {
        try await onRoom { room, subscriberId, publisherId throws(EngineError) in
            try room.stats(subscriber: subscriberId, publisher: publisherId)
        }
    }

    private func setPreference(_ preference: EffectivePreference) async throws(EngineError) {
        guard source == .camera else {
            throw .notAllowed("setQuality and setViewPort choose the webcam's layer (docs/joining-a-room.md); use setScreenShareQuality")
        }
        try await onRoom { room, subscriberId, publisherId throws(EngineError) in
            try room.setPreference(preference, subscriber: subscriberId, publisher: publisherId)
        }
    }

    /// Runs `body` on the loop with this track's room, subscriber and publisher.
    private func onRoom<T: Sendable>(_ body: @escaping @Sendable (any RoomBackend, String, String) throws(EngineError) -> T)
        async throws(EngineError) -> T {
        let (roomId, subscriberId, publisherKey) = (roomId, subscriberId, publisherKey)
        return try await loop.perform { runtime throws(EngineError) in
            guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
            return try body(room, subscriberId, publisherKey)
        }
    }
}
