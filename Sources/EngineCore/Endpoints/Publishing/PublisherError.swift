import SFrame
import Glibc
import MediaCodecs
import RTPWire
import SRTP
import Simulcast

/// Every failure of the publish path, each wrapping the typed error of the layer it came from.
/// Nothing on this path traps on external input (keys, addresses, received datagrams).
public enum PublisherError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Socket or destination problem (bad address, port out of range, unreachable).
    case network(NetworkError)
    /// SRTP key, suite or protect/unprotect failure (RFC 3711).
    case srtp(SRTPError)
    /// A packet could not be built or a received one could not be parsed.
    case wire(WireError)
    /// The packetizer refused a frame (RFC 7741 / RFC 7587).
    case packetizer(PacketizerError)
    /// The VP8 simulcast encoder failed.
    case encoder(SimulcastEncoderError)
    /// The Opus encoder failed.
    case opus(OpusError)
    /// The configuration cannot work (says why).
    case invalidConfiguration(String)
    /// A packet larger than the send path's buffers (`SendPath.maximumPacketSize`).
    case packetTooLarge(size: Int, limit: Int)
    /// The track asked for does not exist on this publisher (e.g. audio on a video-only publisher).
    case trackNotConfigured(String)
    /// A file (e.g. the pcap tap) could not be written (errno).
    case file(path: String, errno: Int32)
    /// `setWebcamQuality` refused (docs/sending-caps.md: not while the camera is off).
    case webcamQuality(WebcamQualityCapError)
    /// End-to-end frame encryption (SFrame, RFC 9605) refused the frame.
    case e2ee(SFrameError)

    /// What was wrong, from the layer that failed, with the values involved.
    public var description: String {
        switch self {
        case let .network(error): return "network: \(error)"
        case let .srtp(error): return "SRTP: \(error)"
        case let .wire(error): return "building or parsing a packet failed: \(error)"
        case let .packetizer(error): return "packetizing failed: \(error)"
        case let .encoder(error): return "video encoder: \(error)"
        case let .opus(error): return "Opus encoder: \(error)"
        case let .e2ee(error): return "end-to-end encryption: \(error)"
        case let .invalidConfiguration(text): return "the publisher configuration cannot work: \(text)"
        case let .packetTooLarge(size, limit):
            return "a packet of \(size) bytes is larger than the send path's limit of \(limit) bytes"
        case let .trackNotConfigured(track):
            return "this publisher has no \(track) track: add one to its PublisherConfiguration first"
        case let .file(path, code): return "cannot write \(path): \(String(cString: strerror(code)))"
        case let .webcamQuality(error): return "\(error)"
        }
    }
}
