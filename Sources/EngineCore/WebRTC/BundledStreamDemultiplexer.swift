import RTPWire
import SessionCore

/// Receives every stream of one bundled peer connection (RFC 8843: many m-lines, one ICE/DTLS
/// transport) and hands each (S)RTP and (S)RTCP datagram, still protected, to the endpoint of its
/// stream. RTP goes by its SSRC (in the clear under SRTP, RFC 3711 §3.1): the SSRCs the offer
/// announced (`a=ssrc`, RFC 5576) and those learned from a packet's MID header extension
/// (RFC 8843 §15, RFC 8285) are mapped to the stream's mid, the mid to its
/// endpoint. RTCP goes by its first packet's sender SSRC (an SR of the stream's SSRC). What has
/// no route is counted and dropped.
///
/// Counts what reached the socket per SSRC (`packetsReceived(ssrc:)`, routed or not) and in all:
/// a stream nobody consumes shows there as packets that still arrive. No allocation per packet
/// once a stream's SSRC is known (a new SSRC's mid is read once). Not `Sendable`: the loop's.
public final class BundledStreamDemultiplexer {
    public let transport: any DatagramTransport
    /// At most this many SSRCs are mapped and counted (a hostile peer cannot grow the tables).
    public static let ssrcLimit = 512

    private var buffer = [UInt8](repeating: 0, count: Subscriber.maximumDatagramSize)
    private var endpoints: [String: Subscriber] = [:]
    private var midsBySSRC: [UInt32: String] = [:]
    private var packetsBySSRC: [UInt32: Int64] = [:]
    /// The MID extension's id in the negotiated sections (the same in every section of a bundle).
    public var midExtensionID: UInt8?
    public private(set) var datagramsReceived: Int64 = 0
    /// Bytes of every datagram read (the whole downlink, for a receive-side estimate of it).
    public private(set) var bytesReceived: Int64 = 0
    /// RTP or RTCP with no endpoint to take it (no route for its SSRC or mid).
    public private(set) var unroutedDatagrams: Int64 = 0

    public init(transport: any DatagramTransport) {
        self.transport = transport
    }

    /// Maps the SSRCs the negotiated sections announced to their mids, and notes the MID extension's id.
    public func learn(_ sections: [ReceivingSession.Section]) {
        for section in sections {
            if let id = section.extensionMap.id(for: .mid) { midExtensionID = id }
            for ssrc in section.ssrcs { map(ssrc: ssrc, to: section.mid) }
        }
    }

    /// Media of `ssrc` belongs to `mid` (ignored once `ssrcLimit` SSRCs are mapped).
    public func map(ssrc: UInt32, to mid: String) {
        guard midsBySSRC.count < Self.ssrcLimit || midsBySSRC[ssrc] != nil else { return }
        midsBySSRC[ssrc] = mid
    }

    /// Media of `mid` goes to `endpoint` from now on.
    public func route(mid: String, to endpoint: Subscriber) { endpoints[mid] = endpoint }

    /// Media of `mid` reaches nobody from now on (still counted on the socket).
    public func removeRoute(mid: String) { endpoints[mid] = nil }

    /// The RTP packets of `ssrc` that reached the socket, whether anyone took them or not.
    public func packetsReceived(ssrc: UInt32) -> Int64 { packetsBySSRC[ssrc] ?? 0 }

    /// The RTP packets that reached the socket for every SSRC mapped to `mid`.
    public func packetsReceived(mid: String) -> Int64 {
        midsBySSRC.reduce(0) { $0 + ($1.value == mid ? packetsReceived(ssrc: $1.key) : 0) }
    }

    /// Reads every datagram the transport has (waiting at most `timeoutMilliseconds` for the
    /// first) and routes it; returns how many were read.
    @discardableResult
    public func poll(timeoutMilliseconds: Int32) throws(NetworkError) -> Int {
        try UDPSocket.drain(timeoutMilliseconds: timeoutMilliseconds) { timeout throws(NetworkError) in
            guard let received = try transport.receive(into: &buffer, timeoutMilliseconds: timeout) else { return false }
            dispatch(length: received.count, from: received.from)
            return true
        }
    }

    private func dispatch(length: Int, from source: NetworkEndpoint) {
        datagramsReceived += 1
        bytesReceived += Int64(length)
        guard length >= 12 else {
            unroutedDatagrams += 1
            return
        }
        let payloadType = buffer[1] & 0x7F
        // RFC 5761 §4: 64...95 in the second byte's low bits are RTCP packet types 192...223.
        let isRTCP = (64...95).contains(payloadType)
        let ssrc = isRTCP ? Self.word(buffer, at: 4) : Self.word(buffer, at: 8)
        var mid = midsBySSRC[ssrc]
        if !isRTCP {
            if let count = packetsBySSRC[ssrc] {
                packetsBySSRC[ssrc] = count + 1
            } else if packetsBySSRC.count < Self.ssrcLimit {
                packetsBySSRC[ssrc] = 1
            }
            if mid == nil, let found = readMID(length: length) {
                mid = found
                map(ssrc: ssrc, to: found)
            }
        }
        guard let mid, let endpoint = endpoints[mid] else {
            unroutedDatagrams += 1
            return
        }
        endpoint.handle(datagram: buffer[0..<length], from: source)
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// The MID extension's value (RFC 8843 §15.2) in the RTP header in `buffer`, read through
    /// `RTPPacketView` (RFC 8285 one- and two-byte forms); nil when absent or malformed.
    private func readMID(length: Int) -> String? {
        guard let wanted = midExtensionID, let view = try? RTPPacketView(buffer[0..<length]) else { return nil }
        return (try? view.extensionValue(MediaIdentifier.self, id: wanted))??.value
    }
}
