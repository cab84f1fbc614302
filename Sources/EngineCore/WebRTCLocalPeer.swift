import DTLS
import RTPWire
import SessionCore

/// Our end of one WebRTC transport before it connects: a DTLS certificate (RFC 8827 §6.5), a UDP
/// socket on a local IPv4 address, fresh ICE credentials and an ICE agent in `role` (RFC 8445),
/// and the host candidate to signal. `connect` takes what the peer's description said and runs
/// ICE, then DTLS-SRTP (RFC 5764) on the selected pair. Not `Sendable`: one thread.
public final class WebRTCLocalPeer {
    public let certificate: DTLSCertificate
    public let credentials: ICECredentials
    public let agent: ICEAgent
    public let ice: ICEDatagramTransport
    public let hostCandidate: ICECandidate

    /// Binds the socket (any port of `localAddress`) and makes the certificate and credentials.
    /// Throws `JanusSessionFailure.transport` when either fails.
    public init(localAddress: UInt32, role: ICEAgent.Role, clock: MediaClock = .system) throws(JanusSessionFailure) {
        let socket: UDPSocket
        do {
            certificate = try DTLSCertificate()
            socket = try UDPSocket(bindingTo: NetworkEndpoint(address: localAddress, port: 0))
            try socket.setReceiveBufferSize(1 << 20)
        } catch {
            throw .transport("\(error)")
        }
        var random = SystemRandomNumberGenerator()
        credentials = ICECredentials.random(using: &random)
        agent = ICEAgent(configuration: .init(local: credentials, role: role, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                         seed: UInt64.random(in: 0...UInt64.max))
        ice = ICEDatagramTransport(socket: socket, agent: agent, clock: clock)
        let local = socket.localEndpoint
        hostCandidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: NetworkEndpoint.dotted(local.address),
                                     port: local.port, kind: .host)
    }

    /// A connected transport, the SRTP keys DTLS exported, the peer's selected address and how
    /// long ICE + DTLS took.
    public struct Connection {
        public let transport: WebRTCTransport
        public let keys: DTLSSRTPKeys
        public let remote: NetworkEndpoint
        public let milliseconds: Int64
    }

    /// Checks the peer's UDP IPv4 candidates (those of its description and those it trickled)
    /// with its credentials, then runs DTLS as `dtlsRole` against its fingerprint, within
    /// `timeoutMilliseconds`. Throws `JanusSessionFailure.transport` when either fails.
    public func connect(to remote: RemoteTransportDescription, trickled: [ICECandidate], dtlsRole: DTLSAssociation.Role,
                        timeoutMilliseconds: Int64, clock: MediaClock = .system) throws(JanusSessionFailure) -> Connection {
        agent.setRemoteCredentials(remote.ice)
        for candidate in remote.candidates + trickled where candidate.transport.lowercased() == "udp" {
            guard let address = NetworkEndpoint.ipv4Address(candidate.address) else { continue }
            agent.addRemoteCandidate(.ipv4(address, port: candidate.port), priority: candidate.priority)
        }
        let transport: WebRTCTransport
        do {
            transport = WebRTCTransport(ice: ice, dtls: try DTLSAssociation(role: dtlsRole, certificate: certificate,
                                                                            remoteFingerprint: remote.fingerprint))
        } catch {
            throw .transport("\(error)")
        }
        let start = clock.monotonicMilliseconds()
        let state: WebRTCTransport.State
        do {
            state = try transport.connect(timeoutMilliseconds: timeoutMilliseconds, clock: clock)
        } catch {
            throw .transport("\(error)")
        }
        guard case let .connected(keys) = state, let selected = transport.remote else { throw .transport("\(state)") }
        return Connection(transport: transport, keys: keys, remote: selected, milliseconds: clock.monotonicMilliseconds() - start)
    }
}
