import RTPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 20 ms of 48 kHz audio as interleaved signed 16-bit PCM (L R L R … for stereo), the unit the
/// Opus encoder consumes and the decoder produces (RFC 7587 §4.2: RTP clock 48 kHz).
///
/// The frame does not police its length, so a decoder can return what a packet held;
/// ``OpusEncoder`` insists on exactly ``samplesPerChannel20ms`` per channel.
public struct AudioFrame: Sendable, Equatable {
    /// Channel layout: Opus over RTP carries mono or stereo (RFC 7587 §7).
    public enum Channels: Int, Sendable, CaseIterable {
        case mono = 1
        case stereo = 2

        /// Channel count as an integer.
        public var count: Int { rawValue }
    }

    /// The only sample rate the engine uses, in Hz.
    public static let sampleRate = 48_000
    /// Samples per channel in 20 ms at 48 kHz.
    public static let samplesPerChannel20ms = 960

    /// Interleaved samples: `samplesPerChannel * channels.count` values.
    public var samples: [Int16]
    public let channels: Channels

    /// Wraps interleaved samples without copying them.
    public init(channels: Channels, samples: [Int16]) {
        self.channels = channels
        self.samples = samples
    }

    /// 20 ms of digital silence.
    public static func silence(channels: Channels) -> AudioFrame {
        AudioFrame(channels: channels, samples: Array(repeating: 0, count: samplesPerChannel20ms * channels.count))
    }

    /// Samples per channel (960 for a 20 ms frame).
    public var samplesPerChannel: Int { samples.count / channels.count }

    /// The RFC 6464 level of this frame, with the default voice-activity threshold.
    public var audioLevel: AudioLevel { AudioLevel(measuring: samples) }
}

extension AudioLevel {
    /// Default voice-activity rule: a frame is "voice" when its level is at or above −50 dBov
    /// (level ≤ 50). A plain energy gate, chosen because it needs no state and no clock; a caller
    /// with a better detector (e.g. the Opus encoder's DTX state) can pass its own answer.
    public static let defaultVoiceActivityThreshold: UInt8 = 50

    /// Measures interleaved 16-bit samples for the RFC 6464 header extension: RMS over all
    /// samples relative to full scale (32768), `level = round(−20·log10(rms / 32768))` clamped to
    /// 0...127 (RFC 6464 §3 and Appendix A). A full-scale sine measures 3, silence 127.
    public init<Samples: Collection>(measuring samples: Samples,
                                     voiceActivityThreshold: UInt8 = AudioLevel.defaultVoiceActivityThreshold)
    where Samples.Element == Int16 {
        var sumOfSquares = 0.0
        var count = 0
        for sample in samples {
            let value = Double(sample)
            sumOfSquares += value * value
            count += 1
        }
        guard count > 0, sumOfSquares > 0 else {
            self = .silence
            return
        }
        let rms = (sumOfSquares / Double(count)).squareRoot()
        let dBov = -20 * log10(rms / 32768)
        let level = UInt8(max(0, min(127, dBov.rounded())))
        self.init(clampingLevel: level, voiceActivity: level <= voiceActivityThreshold)
    }
}
