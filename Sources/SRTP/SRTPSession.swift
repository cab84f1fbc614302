internal import CSRTP

/// One direction of SRTP/SRTCP (RFC 3711) for every SSRC of a transport, backed by a libsrtp
/// session (`srtp_t`) with a wildcard-SSRC stream template.
///
/// Directions are separate sessions, because libsrtp keeps separate replay state and because one
/// side's keys differ from the other's (SDES and DTLS-SRTP both give each sender its own key):
/// an `.outbound` session only protects, an `.inbound` session only unprotects.
///
/// **Buffers.** Every operation writes into memory the caller provides and returns the number of
/// bytes written; nothing is allocated per packet. Protecting needs `packet.count +`
/// ``SRTPSuite/rtpOverhead`` (RTP) or ``SRTPSuite/rtcpOverhead`` (RTCP) bytes of output, at
/// most `packet.count +` ``maxTrailerLength``; unprotecting needs `packet.count` bytes.
///
/// **Threads.** Not `Sendable`: libsrtp sessions are not thread-safe (protect updates the rollover
/// counter and replay database). Confine a session to one thread, task or actor.
///
/// **Keys.** libsrtp copies and expands the master key in `srtp_create` and wipes its copies in
/// `srtp_dealloc` (called by `deinit`); the temporary copy made here is wiped right after
/// `srtp_create`. The session does not keep the ``SRTPKeyingMaterial``.
public final class SRTPSession {
    /// Whether a session protects what we send or unprotects what we receive.
    public enum Direction: Sendable, Equatable {
        /// Unprotects received SRTP/SRTCP (`ssrc_any_inbound`).
        case inbound
        /// Protects RTP/RTCP before sending (`ssrc_any_outbound`).
        case outbound
    }

    /// libsrtp's default replay window, in packets (`window_size` 0 means 128).
    public static let defaultReplayWindowSize = 128
    /// The window sizes libsrtp accepts for `srtp_policy_t.window_size` (srtp_rdbx_init).
    public static let replayWindowSizes = 64...0x7fff
    /// The most bytes any protect may append: `SRTP_MAX_TRAILER_LEN` (16-byte tag + 128-byte MKI),
    /// plus the 4-byte SRTCP index. Output buffers this much larger than the packet always fit.
    public static let maxTrailerLength = 16 + 128 + 4

    public let direction: Direction
    public let suite: SRTPSuite
    /// The SRTP replay window, in packets. (SRTCP's window is fixed by libsrtp at 128.)
    public let replayWindowSize: Int

    private let session: srtp_t

    /// Creates a session. Throws ``SRTPError/unsupportedSuite(_:)`` when the installed libsrtp
    /// cannot run the material's suite, ``SRTPError/invalidReplayWindow(_:)`` for a window
    /// outside ``replayWindowSizes``.
    public init(direction: Direction, keyingMaterial: SRTPKeyingMaterial,
                replayWindowSize: Int = SRTPSession.defaultReplayWindowSize) throws(SRTPError) {
        try SRTPLibrary.ensureInitialized()
        let suite = keyingMaterial.suite
        guard suite.isSupported else { throw .unsupportedSuite(suite) }
        guard Self.replayWindowSizes.contains(replayWindowSize) else {
            throw .invalidReplayWindow(replayWindowSize)
        }

        // libsrtp takes a non-const key pointer; hand it a private copy, wiped after use.
        let key = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: keyingMaterial.secret.count)
        _ = key.initialize(from: keyingMaterial.secret.bytes)
        defer {
            SecretBytes.wipe(UnsafeMutableRawBufferPointer(key))
            key.deallocate()
        }
        var policy = SRTPLibrary.makePolicy(suite: suite, direction: direction, key: key.baseAddress!,
                                            replayWindowSize: replayWindowSize)
        var created: srtp_t?
        let status = srtp_create(&created, &policy)
        guard status == srtp_err_status_ok, let created else {
            if let created { _ = srtp_dealloc(created) }
            try SRTPError.check(status)
            throw .library(status: -1, name: "srtp_create returned no session")
        }
        self.session = created
        self.direction = direction
        self.suite = suite
        self.replayWindowSize = replayWindowSize
    }

    deinit {
        // srtp_dealloc only fails on a corrupt session; nothing useful can be done with it here.
        _ = srtp_dealloc(session)
    }
}

@available(*, unavailable, message: "libsrtp sessions are not thread-safe; confine each SRTPSession to one thread or actor")
extension SRTPSession: Sendable {}

// MARK: - Protect / unprotect

extension SRTPSession {
    private enum Operation {
        case protectRTP, protectRTCP, unprotectRTP, unprotectRTCP

        var direction: Direction {
            switch self {
            case .protectRTP, .protectRTCP: .outbound
            case .unprotectRTP, .unprotectRTCP: .inbound
            }
        }

        var isRTCP: Bool { self == .protectRTCP || self == .unprotectRTCP }
    }

    /// Protects an RTP packet (RFC 3711 §3.3) held in `buffer[0..<packetLength]`, in place;
    /// returns the SRTP packet length. `srtp_protect`.
    public func protectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, packetLength: Int) throws(SRTPError) -> Int {
        try run(.protectRTP, buffer: buffer, length: packetLength)
    }

    /// Protects an RTCP packet (RFC 3711 §3.4) in place; returns the SRTCP length. `srtp_protect_rtcp`.
    public func protectRTCP(inPlace buffer: UnsafeMutableRawBufferPointer, packetLength: Int) throws(SRTPError) -> Int {
        try run(.protectRTCP, buffer: buffer, length: packetLength)
    }

    /// Verifies and decrypts an SRTP packet in place; returns the RTP length. `srtp_unprotect`.
    public func unprotectRTP(inPlace buffer: UnsafeMutableRawBufferPointer, packetLength: Int) throws(SRTPError) -> Int {
        try run(.unprotectRTP, buffer: buffer, length: packetLength)
    }

    /// Verifies and decrypts an SRTCP packet in place; returns the RTCP length. `srtp_unprotect_rtcp`.
    public func unprotectRTCP(inPlace buffer: UnsafeMutableRawBufferPointer, packetLength: Int) throws(SRTPError) -> Int {
        try run(.unprotectRTCP, buffer: buffer, length: packetLength)
    }

    /// Copies `packet` to the start of `output` and protects it there; returns the SRTP length.
    public func protectRTP(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        try copyAndRun(.protectRTP, packet, output)
    }

    /// Copies `packet` to the start of `output` and protects it there; returns the SRTCP length.
    public func protectRTCP(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        try copyAndRun(.protectRTCP, packet, output)
    }

    /// Copies `packet` to the start of `output` and unprotects it there; returns the RTP length.
    public func unprotectRTP(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        try copyAndRun(.unprotectRTP, packet, output)
    }

    /// Copies `packet` to the start of `output` and unprotects it there; returns the RTCP length.
    public func unprotectRTCP(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        try copyAndRun(.unprotectRTCP, packet, output)
    }

    /// Protects `packet` into the first bytes of `output`, whose `count` is the space available
    /// (allocate it once, e.g. `[UInt8](repeating: 0, count: 1500)`, and reuse it: `output` keeps
    /// its count and storage, so nothing is allocated). Returns the SRTP length.
    public func protectRTP(_ packet: [UInt8], into output: inout [UInt8]) throws(SRTPError) -> Int {
        try copyAndRun(.protectRTP, packet, &output)
    }

    /// Like ``protectRTP(_:into:)-([UInt8],_)`` for RTCP; returns the SRTCP length.
    public func protectRTCP(_ packet: [UInt8], into output: inout [UInt8]) throws(SRTPError) -> Int {
        try copyAndRun(.protectRTCP, packet, &output)
    }

    /// Unprotects `packet` into the first bytes of `output` (which keeps its count); returns the RTP length.
    public func unprotectRTP(_ packet: [UInt8], into output: inout [UInt8]) throws(SRTPError) -> Int {
        try copyAndRun(.unprotectRTP, packet, &output)
    }

    /// Unprotects `packet` into the first bytes of `output` (which keeps its count); returns the RTCP length.
    public func unprotectRTCP(_ packet: [UInt8], into output: inout [UInt8]) throws(SRTPError) -> Int {
        try copyAndRun(.unprotectRTCP, packet, &output)
    }

    // MARK: Implementation

    private func copyAndRun(_ operation: Operation, _ packet: [UInt8], _ output: inout [UInt8]) throws(SRTPError) -> Int {
        let result: Result<Int, SRTPError> = packet.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                Result { () throws(SRTPError) -> Int in try copyAndRun(operation, source, destination) }
            }
        }
        return try result.get()
    }

    private func copyAndRun(_ operation: Operation, _ packet: UnsafeRawBufferPointer,
                            _ output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        let needed = packet.count + overhead(of: operation)
        guard output.count >= needed else {
            throw .bufferTooSmall(needed: needed, available: output.count)
        }
        if let source = packet.baseAddress, let destination = output.baseAddress, source != UnsafeRawPointer(destination) {
            destination.copyMemory(from: source, byteCount: packet.count)  // memmove semantics
        }
        return try run(operation, buffer: output, length: packet.count)
    }

    private func overhead(of operation: Operation) -> Int {
        switch operation {
        case .protectRTP: suite.rtpOverhead
        case .protectRTCP: suite.rtcpOverhead
        case .unprotectRTP, .unprotectRTCP: 0
        }
    }

    private func run(_ operation: Operation, buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard operation.direction == direction else { throw .wrongDirection(direction) }
        let needed = length + overhead(of: operation)
        guard length >= 0, needed <= buffer.count, let base = buffer.baseAddress else {
            throw .bufferTooSmall(needed: max(needed, 0), available: buffer.count)
        }
        let packet = UnsafeRawBufferPointer(start: base, count: length)
        try operation.isRTCP ? Self.validateRTCPHeader(packet) : Self.validateRTPHeader(packet)
        guard length <= 0xFFFF else { throw .malformedPacket("longer than 65535 bytes") }

        var octets = Int32(length)
        let status = switch operation {
        case .protectRTP: srtp_protect(session, base, &octets)
        case .protectRTCP: srtp_protect_rtcp(session, base, &octets)
        case .unprotectRTP: srtp_unprotect(session, base, &octets)
        case .unprotectRTCP: srtp_unprotect_rtcp(session, base, &octets)
        }
        try SRTPError.check(status)
        return Int(octets)
    }

    /// libsrtp trusts the fixed header, CSRC count and extension length (RFC 3550 §5.1,
    /// RFC 8285); check them here so it never reads past the packet.
    private static func validateRTPHeader(_ packet: UnsafeRawBufferPointer) throws(SRTPError) {
        guard packet.count >= 12 else { throw .malformedPacket("RTP packet shorter than 12 bytes") }
        guard packet[0] >> 6 == 2 else { throw .malformedPacket("RTP version is not 2") }
        var headerLength = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard packet.count >= headerLength + 4 else {
                throw .malformedPacket("RTP header extension truncated")
            }
            let words = Int(packet[headerLength + 2]) << 8 | Int(packet[headerLength + 3])
            headerLength += 4 + 4 * words
        }
        guard packet.count >= headerLength else {
            throw .malformedPacket("RTP header needs \(headerLength) bytes, packet has \(packet.count)")
        }
    }

    private static func validateRTCPHeader(_ packet: UnsafeRawBufferPointer) throws(SRTPError) {
        guard packet.count >= 8 else { throw .malformedPacket("RTCP packet shorter than 8 bytes") }
        guard packet[0] >> 6 == 2 else { throw .malformedPacket("RTCP version is not 2") }
    }
}

extension SRTPSession {
    /// Verifies and decrypts the SRTP packet (or, with `rtcp`, the SRTCP packet) held in
    /// `buffer[0..<packetLength]`, in place; returns the plain length. `srtp_unprotect` /
    /// `srtp_unprotect_rtcp`. For receive loops that reuse one array for every datagram.
    public func unprotect(inPlace buffer: inout [UInt8], packetLength: Int, rtcp: Bool) throws(SRTPError) -> Int {
        guard packetLength >= 0, packetLength <= buffer.count else {
            throw .bufferTooSmall(needed: packetLength, available: buffer.count)
        }
        let result = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SRTPError) -> Int in
                let packet = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<packetLength])
                return rtcp ? try unprotectRTCP(inPlace: packet, packetLength: packetLength)
                    : try unprotectRTP(inPlace: packet, packetLength: packetLength)
            }
        }
        return try result.get()
    }
}
