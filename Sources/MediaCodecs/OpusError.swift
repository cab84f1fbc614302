internal import COpus

/// Every failure of the Opus wrappers. libopus return codes become this type in one place,
/// ``OpusError/check(_:)``; the other cases are checks made before calling libopus.
public enum OpusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A negative libopus return code (`OPUS_BAD_ARG`, `OPUS_BUFFER_TOO_SMALL`,
    /// `OPUS_INVALID_PACKET`, …) with `opus_strerror`'s text.
    case library(code: Int32, message: String)
    /// The frame does not hold `expected` samples per channel (20 ms at 48 kHz = 960).
    case wrongFrameSize(expected: Int, actual: Int)
    /// The frame's channel count differs from the encoder's / decoder's.
    case wrongChannelCount(expected: Int, actual: Int)
    /// A configuration value outside what the wrapper allows (says which).
    case invalidConfiguration(String)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .library(code, message): "libopus failed with error \(code): \(message)"
        case let .wrongFrameSize(expected, actual):
            "an Opus frame must hold \(expected) samples per channel (20 ms at 48 kHz); got \(actual)"
        case let .wrongChannelCount(expected, actual):
            "the frame has \(actual) channel(s) but the codec was set up for \(expected)"
        case let .invalidConfiguration(what): "the Opus configuration cannot work: \(what)"
        }
    }

    /// `OPUS_BAD_ARG` (-1).
    public static let badArgumentCode: Int32 = OPUS_BAD_ARG
    /// `OPUS_BUFFER_TOO_SMALL` (-2).
    public static let bufferTooSmallCode: Int32 = OPUS_BUFFER_TOO_SMALL
    /// `OPUS_INVALID_PACKET` (-4).
    public static let invalidPacketCode: Int32 = OPUS_INVALID_PACKET

    /// The one place where a libopus return code becomes a Swift error: negative codes throw,
    /// non-negative values (byte or sample counts, `OPUS_OK`) are returned.
    @discardableResult
    static func check(_ code: Int32) throws(OpusError) -> Int {
        guard code < 0 else { return Int(code) }
        throw .library(code: code, message: String(cString: opus_strerror(code)))
    }
}
