import RTPWire
import SFrame

/// The end-to-end encryption stage of the session core: each encoded frame is encrypted with
/// SFrame (RFC 9605 §4.2, per-frame mode) after the encoder and before packetization, and
/// decrypted after frame assembly and before the decoder, so a forwarding node relays what it
/// cannot read while it still switches layers: the RTP header and the VP8 payload descriptor
/// are untouched (RFC 7741 §4.2), and the VP8 payload header stays in the clear (RFC 7741 §4.3:
/// 3 bytes, or 10 for a key frame, whose P bit and start code the node reads), as libwebrtc's
/// frame transformers leave it. The clear bytes are the SFrame metadata: authenticated, not
/// encrypted. Opus frames are encrypted whole.
///
///     VP8:  clear payload header | SFrame header | ciphertext | tag
///     Opus: SFrame header | ciphertext | tag
public final class E2EEFrameSealer {
    public let sender: SFrameSender

    public init(sender: SFrameSender) {
        self.sender = sender
    }

    /// The VP8 frame as it goes to the packetizer.
    public func sealVideo(_ frame: [UInt8]) throws(SFrameError) -> [UInt8] {
        let clear = E2EEFrameLayout.clearVP8Bytes(frame)
        let metadata = Array(frame.prefix(clear))
        return metadata + (try sender.encrypt(frame.dropFirst(clear), metadata: metadata))
    }

    /// The Opus frame as it goes to the packetizer.
    public func sealAudio(_ frame: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8] {
        try sender.encrypt(frame)
    }
}

/// The receiving half of `E2EEFrameSealer`: one remote sender's frames back to plaintext,
/// every refusal counted by the `SFrameReceiver` it wraps (wrong key, missing key, tampered,
/// replayed, truncated) and none of them handed on to a decoder.
public final class E2EEFrameOpener {
    public let receiver: SFrameReceiver

    public init(receiver: SFrameReceiver) {
        self.receiver = receiver
    }

    /// The plaintext VP8 frame of an assembled one.
    public func openVideo(_ frame: [UInt8], nowMilliseconds: Int64) throws(SFrameError) -> [UInt8] {
        let clear = E2EEFrameLayout.clearVP8Bytes(frame)
        let metadata = Array(frame.prefix(clear))
        return metadata + (try receiver.decrypt(frame.dropFirst(clear), metadata: metadata, nowMilliseconds: nowMilliseconds).plaintext)
    }

    /// The plaintext Opus frame of a received payload.
    public func openAudio(_ payload: ArraySlice<UInt8>, nowMilliseconds: Int64) throws(SFrameError) -> [UInt8] {
        try receiver.decrypt(payload, metadata: [], nowMilliseconds: nowMilliseconds).plaintext
    }
}

/// Where the clear part of an E2EE VP8 frame ends.
enum E2EEFrameLayout {
    /// RFC 7741 §4.3: the P bit (bit 0 of the first byte) is 0 on a key frame, whose payload
    /// header is 10 bytes (3 + start code + size); 3 otherwise. Never more than the frame.
    static func clearVP8Bytes(_ frame: [UInt8]) -> Int {
        guard let first = frame.first else { return 0 }
        return min(frame.count, first & 0x01 == 0 ? 10 : 3)
    }
}
