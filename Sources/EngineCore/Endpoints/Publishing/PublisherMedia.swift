import MediaCodecs
import RTPWire
import Simulcast

/// The publisher's media in: camera frames through the encoder and packetizers, encoded layer
/// frames, mic frames through Opus, each sent on its stream (`RTPStreamSender`).
extension Publisher {
    /// Encodes one camera frame (any size; scaled and centre-cropped to the plan) on every active
    /// layer and sends each layer's packets. Sends due sender reports afterwards.
    public func send(video frame: VideoFrame) throws(PublisherError) {
        guard let encoder else { throw .trackNotConfigured("video") }
        guard webcamCap.isCameraOn else {
            videoFramesSkippedCameraOff += 1
            return
        }
        try path.drainPacer()
        if let pacer = path.pacer, pacer.queuedMilliseconds > Self.pacerPushbackMilliseconds {
            videoFramesSkippedForPacing += 1
            return
        }
        try videoAllocation.expireREMBLimit(encoder, nowMilliseconds: path.clock.monotonicMilliseconds())
        if keyFrameGate.hasDeferred { serveDeferredKeyFrameRequests() }
        var failure: PublisherError?
        let skippedBefore = encoder.framesSkippedUnchanged
        do {
            try encoder.encode(scaling: frame) { encoded in
                guard failure == nil else { return }
                do throws(PublisherError) { try self.send(encoded) } catch { failure = error }
            }
        } catch {
            throw .encoder(error)
        }
        if let failure { throw failure }
        // A screen frame equal to the last one is not encoded (issue 17).
        if encoder.framesSkippedUnchanged == skippedBefore { videoFramesEncoded += 1 }
        try sendReportsIfDue()
    }

    /// Packetizes one already-encoded layer frame (RFC 7741) and sends it on that layer's SSRC.
    public func send(_ frame: EncodedFrame) throws(PublisherError) {
        guard videoSenders.indices.contains(frame.spatialIndex) else {
            throw .invalidConfiguration("layer \(frame.spatialIndex) of \(videoSenders.count)")
        }
        var encoded = frame
        if let frameSealer {
            do {
                encoded.data = try frameSealer.sealVideo(frame.data)
            } catch {
                throw .e2ee(error)
            }
        }
        let sender = videoSenders[encoded.spatialIndex]
        var failure: PublisherError?
        do {
            try packetizers[encoded.spatialIndex].packetize(encoded) { payload, isLast in
                guard failure == nil else { return }
                do throws(PublisherError) {
                    try sender.send(payload: payload, timestamp: encoded.rtpTimestamp, marker: isLast)
                } catch {
                    failure = error
                }
            }
        } catch {
            throw .packetizer(error)
        }
        if let failure { throw failure }
    }

    /// Encodes one 20 ms mic frame with Opus and sends it with its RFC 6464 level. With DTX on,
    /// frames the encoder marks as DTX (≤ 2 bytes) are not sent; the RTP timestamp still advances
    /// and the first packet after a gap carries the marker bit (RFC 3551 §4.1).
    public func send(audio frame: AudioFrame) throws(PublisherError) {
        guard let opusEncoder, let audioSender, let audio = configuration.audio else {
            throw .trackNotConfigured("audio")
        }
        let level = AudioLevel(measuring: frame.samples)
        let length: Int
        do {
            length = try opusEncoder.encode(frame, into: &opusBuffer)
        } catch {
            throw .opus(error)
        }
        audioFramesEncoded += 1
        var packet: (payload: ArraySlice<UInt8>, timestamp: UInt32, samples: Int)
        do {
            packet = try opusPacketizer.packetize(opusBuffer[0..<length])
        } catch {
            throw .packetizer(error)
        }
        if let frameSealer {
            // The timestamp comes from the plaintext (its TOC); the payload is the sealed frame.
            do {
                packet.payload = try frameSealer.sealAudio(packet.payload)[...]
            } catch {
                throw .e2ee(error)
            }
        }
        if audio.opus.dtx && length <= 2 {
            audioFramesSuppressed += 1
            audioWasSilent = true
        } else {
            try audioSender.send(payload: packet.payload, timestamp: packet.timestamp, marker: audioWasSilent,
                                 audioLevel: level)
            audioWasSilent = false
        }
        try sendReportsIfDue()
    }

    /// Asks the encoder for a key frame on every layer (docs/layer-plan.md), bypassing the throttle.
    public func requestKeyFrame() {
        encoder?.requestKeyFrame()
        keyFramesRequested += 1
    }
}
