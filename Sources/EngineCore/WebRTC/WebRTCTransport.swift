import DTLS
import RTPWire
import SRTP
import SessionCore

/// The WebRTC transport of one peer connection (RFC 8829 §3.4.1's BUNDLE of one component):
/// an ICE-guarded UDP port (`ICEDatagramTransport`) carrying DTLS-SRTP (`DTLSAssociation`).
/// ICE runs first; once a pair is selected the DTLS client sends its ClientHello; once the
/// handshake checks the peer's fingerprint, `keys` holds the SRTP keys for the endpoint's
/// security stage. DTLS records never reach the endpoint: `receive` returns only (S)RTP/(S)RTCP
/// from the selected peer.
///
/// Not `Sendable`: confined with its endpoint.
public final class WebRTCTransport: DatagramTransport {
    public enum State: Sendable {
        case connecting
        case connected(DTLSSRTPKeys)
        case failed(String)
    }

    public let ice: ICEDatagramTransport
    public let dtls: DTLSAssociation
    private var started = false
    private var buffer = [UInt8](repeating: 0, count: 2048)

    public init(ice: ICEDatagramTransport, dtls: DTLSAssociation) {
        self.ice = ice
        self.dtls = dtls
    }

    public var localEndpoint: NetworkEndpoint { ice.localEndpoint }

    /// Over ICE-TCP (RFC 6544), yes.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { ice.isReliableStream(to: peer) }

    public var state: State {
        if ice.agent.state == .failed { return .failed("ICE failed (no pair, or consent expired)") }
        if let failure = ice.gatheringFailure, ice.agent.selectedPair == nil { return .failed("\(failure)") }
        switch dtls.state {
        case let .connected(keys): return .connected(keys)
        case let .failed(error): return .failed("\(error)")
        case .closed: return .failed("DTLS closed by the peer")
        case .handshaking: return .connecting
        }
    }

    /// The selected pair's remote address: where media goes.
    public var remote: NetworkEndpoint? { ice.selectedRemote }

    /// Runs ICE and DTLS timers; starts the DTLS client once ICE has selected a pair.
    public func service() {
        ice.service()
        guard let remote = ice.selectedRemote else { return }
        if !started {
            started = true
            transmit(dtls.start(), to: remote)
        }
        transmit(dtls.poll(), to: remote)
    }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        try ice.send(bytes, to: destination)
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        try BundleReceiveLoop.receive(from: ice, into: buffer, timeoutMilliseconds: timeoutMilliseconds,
                                      service: service) { bytes, from in
            guard BundledDatagramKind.classify(firstByte: bytes.first) == .dtls else { return (bytes.count, from) }
            let record = Array(bytes)
            transmit(dtls.handle(record[...]), to: from)
            return nil
        }
    }

    /// Drives ICE and DTLS until connected or failed, for at most `timeoutMilliseconds`
    /// (the caller's first use; afterwards `receive` keeps both running).
    @discardableResult
    public func connect(timeoutMilliseconds: Int64, clock: MediaClock = .system) throws(NetworkError) -> State {
        let deadline = clock.monotonicMilliseconds() + timeoutMilliseconds
        while clock.monotonicMilliseconds() < deadline {
            if case .connecting = state {} else { return state }
            // RTP/RTCP before the endpoint exists has nowhere to go: dropped (SRTP would refuse it anyway).
            _ = try receive(into: &buffer, timeoutMilliseconds: 5)
        }
        return state
    }

    private func transmit(_ datagrams: [[UInt8]], to destination: NetworkEndpoint) {
        for datagram in datagrams { try? ice.send(datagram, to: destination) }  // a lost flight is retransmitted
    }
}
