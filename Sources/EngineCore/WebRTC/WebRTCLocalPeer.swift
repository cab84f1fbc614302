import DTLS
import RTPWire
import SessionCore

/// Our end of one WebRTC transport before it connects: a DTLS certificate (RFC 8827 §6.5), fresh
/// ICE credentials and an ICE agent in `role` (RFC 8445), and the host candidate to signal: a UDP
/// socket on a local IPv4 address or on every interface (IPv4 and IPv6), or with `iceTCP` an active TCP candidate (RFC 6544) and no UDP
/// socket at all. `connect` takes what the peer's description said and runs ICE, then DTLS-SRTP
/// (RFC 5764) on the selected pair. Not `Sendable`: one thread.
public final class WebRTCLocalPeer {
    public let certificate: DTLSCertificate
    public let credentials: ICECredentials
    public let agent: ICEAgent
    /// The candidates to signal in the offer or answer, best first: the host candidate(s) (none
    /// under the `relay` transport policy). With STUN or TURN servers configured, or the `relay`
    /// policy, the rest trickle once connecting (`isTrickling`, RFC 8838).
    public let candidates: [ICECandidate]
    public let transportPolicy: ICETransportPolicy
    /// The STUN queries and TURN allocations still under way on the ICE socket (nil: none asked).
    private let gathering: TrickleGathering?
    /// Whether more candidates trickle after `candidates` (the description then carries no
    /// `a=end-of-candidates`, RFC 8838 §5).
    public var isTrickling: Bool { gathering != nil }
    /// What gathering could not do (a silent STUN server, an unsupported URL), in words (complete
    /// once gathering is).
    public var gatheringProblems: [String] { gathering?.problems ?? [] }
    public let localAddress: UInt32
    /// The UDP socket ICE runs on; nil with ICE-TCP.
    private let socket: UDPSocket?
    private let clock: MediaClock

    /// Binds the UDP socket (any port of `localAddress`; 0: every interface, IPv4 and IPv6
    /// (`NetworkEndpoint.everyInterface`), with a host candidate per usable interface address) unless `iceTCP`, and makes the certificate and
    /// credentials. With `iceServers` (or the `relay` policy) gathering starts on that socket
    /// without waiting for any server (trickle ICE, RFC 8838; `TrickleGathering`): server-reflexive
    /// and relayed candidates (RFC 8445 §5.1.1.2, TURN allocations, RFC 8656) trickle once
    /// `connect` runs. With `transportPolicy` `.relay` only relayed candidates are offered and
    /// paired. Throws `JanusSessionFailure.transport` when any of it fails (the configuration, no
    /// address to gather on).
    public init(localAddress: UInt32, role: ICEAgent.Role, iceTCP: Bool = false, iceServers: [ICEServer] = [],
                transportPolicy: ICETransportPolicy = .all, clock: MediaClock = .system) throws(JanusSessionFailure) {
        do {
            certificate = try DTLSCertificate()
            if iceTCP {
                socket = nil
            } else {
                let socket = try UDPSocket(bindingTo: localAddress == 0 ? .everyInterface(port: 0)
                                                                         : NetworkEndpoint(address: localAddress, port: 0))
                try socket.setReceiveBufferSize(1 << 20)
                self.socket = socket
            }
        } catch {
            throw .transport("\(error)")
        }
        var random = SystemRandomNumberGenerator()
        credentials = ICECredentials.random(using: &random)
        agent = ICEAgent(configuration: .init(local: credentials, role: role, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                         seed: UInt64.random(in: 0...UInt64.max))
        self.localAddress = localAddress
        self.clock = clock
        self.transportPolicy = iceTCP ? .all : transportPolicy
        if let socket, localAddress == 0 || !iceServers.isEmpty || transportPolicy == .relay {
            let configuration = CandidateGatherer.Configuration(iceServers: iceServers, transportPolicy: transportPolicy)
            do throws(CandidateGatheringError) {
                if iceServers.isEmpty && transportPolicy == .all {
                    // Every interface's host candidate, nothing to ask a server: at once.
                    gathering = nil
                    candidates = try CandidateGatherer(configuration: configuration, clock: clock, seed: 0).gather(on: socket).map(\.candidate)
                } else {
                    let gathering = try TrickleGathering(on: socket, configuration: configuration, clock: clock,
                                                         seed: UInt64.random(in: 0...UInt64.max))
                    self.gathering = gathering
                    candidates = gathering.hosts
                }
            } catch {
                throw .transport("gathering ICE candidates: \(error)")
            }
            return
        }
        gathering = nil
        if let local = socket?.localEndpoint {
            candidates = [ICECandidate(foundation: "1", priority: 2_130_706_431, address: local.addressText,
                                       port: local.port, kind: .host)]
        } else {
            // RFC 6544 §4.5: an active candidate's port is 9 (discard); §4.2: host type preference
            // 126, local preference 2^13 x 6 (active, host) + 8191, component 1.
            candidates = [ICECandidate(foundation: "1", transport: "tcp", priority: 126 << 24 | (6 << 13 + 8191) << 8 | 255,
                                       address: NetworkEndpoint.dotted(localAddress), port: 9, kind: .host,
                                       extensions: [(name: "tcptype", value: "active")])]
        }
    }

    /// A connected transport, the SRTP keys DTLS exported, the peer's selected address and how
    /// long ICE + DTLS took.
    public struct Connection {
        public let transport: WebRTCTransport
        public let keys: DTLSSRTPKeys
        public let remote: NetworkEndpoint
        public let milliseconds: Int64
    }

    /// Checks the peer's candidates (those of its description and those it trickled: UDP IPv4
    /// and IPv6 ones, or with ICE-TCP the first passive TCP one, connected to first) with its credentials,
    /// then runs DTLS as `dtlsRole` against its fingerprint, within `timeoutMilliseconds`; our
    /// own candidates trickle to `onTrickle` meanwhile and after (`isTrickling`; the transport's
    /// `onTrickle`, which its owner may replace). Throws `JanusSessionFailure.transport` when
    /// either fails.
    public func connect(to remote: RemoteTransportDescription, trickled: [ICECandidate], dtlsRole: DTLSAssociation.Role,
                        timeoutMilliseconds: Int64, onTrickle: ((ICECandidate?) -> Void)? = nil) throws(JanusSessionFailure) -> Connection {
        agent.setRemoteCredentials(remote.ice)
        let ice: ICEDatagramTransport
        if let socket {
            ice = ICEDatagramTransport(socket: socket, agent: agent, pairsHost: transportPolicy == .all, clock: clock)
            for candidate in remote.candidates + trickled where candidate.transport.lowercased() == "udp" {
                guard let address = NetworkEndpoint.ipAddress(candidate.address) else { continue }
                ice.addRemoteCandidate(NetworkEndpoint(ip: address, port: candidate.port), priority: candidate.priority)
            }
        } else {
            ice = try connectICETCP(to: remote.candidates + trickled)
        }
        ice.signalledCandidates = (candidates, remote.candidates + trickled)
        if let gathering {
            ice.trickle(gathering)
            ice.onTrickle = onTrickle
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

    /// ICE-TCP (RFC 6544): connects from `localAddress` to the first passive TCP candidate the
    /// peer offered and makes that connection (RFC 4571 framing) the ICE transport, the candidate
    /// its one remote.
    private func connectICETCP(to candidates: [ICECandidate]) throws(JanusSessionFailure) -> ICEDatagramTransport {
        guard let passive = candidates.first(where: { candidate in
            candidate.transport.lowercased() == "tcp" && candidate.extensions.contains { $0.name == "tcptype" && $0.value == "passive" }
                && NetworkEndpoint.ipv4Address(candidate.address) != nil
        }), let address = NetworkEndpoint.ipv4Address(passive.address) else {
            throw .transport("the peer offered no IPv4 passive ICE-TCP candidate (Janus: janus.jcfg needs ice_tcp = true and ice_lite = true)")
        }
        let connection: TCPFramedConnection
        do {
            connection = try TCPFramedConnection.connect(to: NetworkEndpoint(address: address, port: passive.port),
                                                         from: NetworkEndpoint(address: localAddress, port: 0))
        } catch {
            throw .transport("ICE-TCP connection to \(passive.address):\(passive.port): \(error)")
        }
        let ice = ICEDatagramTransport(socket: connection, agent: agent, clock: clock)
        agent.addRemoteCandidate(.ipv4(address, port: passive.port), priority: passive.priority)
        return ice
    }
}
