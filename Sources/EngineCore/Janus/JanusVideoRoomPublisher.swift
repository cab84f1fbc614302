import DTLS
import Foundation
import RTPWire
import SessionCore
import Simulcast
import SRTP

/// Publishes a simulcast camera (and Opus) into a Janus VideoRoom as a WebRTC peer: joins the
/// room as a publisher over the HTTP API, sends the JSEP offer (RIDs highest first, as Janus
/// expects), applies its answer (`NegotiatedPublishing`), runs ICE (controlling) and DTLS-SRTP
/// (`WebRTCTransport`), and builds the `Publisher` that sends through it.
///
/// With `iceTCP` everything goes over one TCP connection instead of UDP (ICE-TCP, RFC 6544): the
/// offer carries an active TCP candidate (port 9, §4.5), the engine connects to the passive TCP
/// candidate of Janus's answer and runs the ICE checks, DTLS and SRTP over it, each packet after its
/// 16-bit length (RFC 4571). Janus 1.1.2 offers passive TCP candidates only with `ice_tcp = true`,
/// which wants `ice_lite = true` beside it (janus.jcfg `nat`; scripts/janus-harness.sh --ice-tcp).
///
/// Blocks its caller while connecting (signalling, ICE and DTLS: typically well under a second).
/// Not `Sendable`: drive the publisher and `keepAlive` from one thread.
public final class JanusVideoRoomPublisher {
    public struct Options: Sendable {
        public var url: URL
        public var room: Int
        public var display: String
        public var camera: LayerPlan
        public var audio: Bool
        /// The local address to bind (its port 0: any); must be one Janus can reach.
        public var localAddress: UInt32
        public var connectTimeoutMilliseconds: Int64
        /// ICE-TCP (RFC 6544) instead of UDP: no UDP socket is opened.
        public var iceTCP: Bool

        public init(url: URL, room: Int, display: String = "engine", camera: LayerPlan, audio: Bool = true,
                    localAddress: UInt32, connectTimeoutMilliseconds: Int64 = 5_000, iceTCP: Bool = false) {
            self.iceTCP = iceTCP
            self.url = url
            self.room = room
            self.display = display
            self.camera = camera
            self.audio = audio
            self.localAddress = localAddress
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        }
    }

    /// Why publishing could not start.
    public enum Failure: Error, CustomStringConvertible {
        case signalling(JanusHTTPClient.Failure)
        case sdp(SDPError)
        case transport(String)
        case configuration(String)

        public var description: String {
            switch self {
            case let .signalling(failure): return "Janus signalling: \(failure)"
            case let .sdp(error): return "Janus answer: \(error)"
            case let .transport(reason): return "WebRTC transport: \(reason)"
            case let .configuration(reason): return "publisher: \(reason)"
            }
        }
    }

    public let janus: JanusHTTPClient
    /// Our publisher id in the room, and what Janus said when it configured the stream.
    public let publisherID: Int
    public let configured: [String: Any]
    public let negotiated: NegotiatedSession
    public let transport: WebRTCTransport
    public let publisher: Publisher
    /// How long ICE + DTLS took.
    public let connectMilliseconds: Int64

    public init(options: Options, clock: MediaClock = .system) throws(Failure) {
        let janus = JanusHTTPClient(base: options.url)
        // A publisher that could not start leaves the room and ends its Janus session at once (a
        // caller may try again another way, e.g. over ICE-TCP after UDP failed).
        var started = false
        defer { if !started { janus.close() } }
        do throws(JanusHTTPClient.Failure) {
            try janus.attach(plugin: "janus.plugin.videoroom")
            try janus.message(["request": "join", "ptype": "publisher", "room": options.room, "display": options.display])
            let joined = try janus.waitForEvent { Self.pluginData($0)?["videoroom"] as? String == "joined" }
            guard let id = Self.pluginData(joined)?["id"] as? Int else { throw JanusHTTPClient.Failure(description: "joined without an id") }
            publisherID = id
        } catch {
            throw .signalling(error)
        }

        let certificate: DTLSCertificate
        var socket: UDPSocket?
        do {
            certificate = try DTLSCertificate()
            if !options.iceTCP {
                socket = try UDPSocket(bindingTo: NetworkEndpoint(address: options.localAddress, port: 0))
                try socket?.setReceiveBufferSize(1 << 20)
            }
        } catch {
            throw .transport("\(error)")
        }
        var random = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        let agent = ICEAgent(configuration: .init(local: credentials, role: .controlling, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                             seed: UInt64.random(in: 0...UInt64.max))
        let audioSSRC = UInt32.random(in: 0x1000_0000...0x7FFF_FFFF), firstVideoSSRC = UInt32.random(in: 0x8000_0000...0xEFFF_0000)
        let candidate: ICECandidate
        if let local = socket?.localEndpoint {
            candidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: Self.dotted(local.address), port: local.port, kind: .host)
        } else {
            // RFC 6544 §4.5: an active candidate's port is 9 (discard); §4.2: host type preference
            // 126, local preference 2^13 x 6 (active, host) + 8191, component 1.
            candidate = ICECandidate(foundation: "1", transport: "tcp", priority: 126 << 24 | (6 << 13 + 8191) << 8 | 255,
                                     address: Self.dotted(options.localAddress), port: 9, kind: .host,
                                     extensions: [(name: "tcptype", value: "active")])
        }
        let offer = SimulcastOffer(
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)), ice: credentials, fingerprint: certificate.fingerprint,
            candidates: [candidate],
            audio: options.audio ? .init(ssrc: audioSSRC) : nil,
            video: .init(rids: NegotiatedPublishing.offeredRIDs(for: options.camera)), cname: options.display)
        var trickled: [ICECandidate] = []
        var answerSDP: String?
        var configured: [String: Any] = [:]
        do throws(JanusHTTPClient.Failure) {
            try janus.message(["request": "publish", "audio": options.audio, "video": true],
                              jsep: ["type": "offer", "sdp": offer.sessionDescription.text])
            _ = try janus.waitForEvent { event in
                if let sdp = (event["jsep"] as? [String: Any])?["sdp"] as? String { answerSDP = sdp }
                if let data = Self.pluginData(event), data["configured"] != nil { configured = data }
                if let text = (event["candidate"] as? [String: Any])?["candidate"] as? String,
                   let candidate = try? ICECandidate(parsing: text) { trickled.append(candidate) }
                return answerSDP != nil
            }
        } catch {
            throw .signalling(error)
        }
        self.configured = configured
        do {
            negotiated = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answerSDP ?? ""))
        } catch {
            throw .sdp(error)
        }
        agent.setRemoteCredentials(negotiated.remoteICE)
        let ice: ICEDatagramTransport
        if let socket {
            ice = ICEDatagramTransport(socket: socket, agent: agent, clock: clock)
            for candidate in negotiated.remoteCandidates + trickled where candidate.transport.lowercased() == "udp" {
                guard let address = NetworkEndpoint.ipv4Address(candidate.address) else { continue }
                agent.addRemoteCandidate(.ipv4(address, port: candidate.port), priority: candidate.priority)
            }
        } else {
            ice = try Self.connectICETCP(to: negotiated.remoteCandidates + trickled, from: options.localAddress, agent: agent, clock: clock)
        }
        do {
            let dtls = try DTLSAssociation(role: negotiated.remoteSetup == .active ? .server : .client, certificate: certificate,
                                           remoteFingerprint: negotiated.remoteFingerprint)
            transport = WebRTCTransport(ice: ice, dtls: dtls)
        } catch {
            throw .transport("\(error)")
        }
        let start = clock.monotonicMilliseconds()
        let state: WebRTCTransport.State
        do {
            state = try transport.connect(timeoutMilliseconds: options.connectTimeoutMilliseconds, clock: clock)
        } catch {
            throw .transport("\(error)")
        }
        connectMilliseconds = clock.monotonicMilliseconds() - start
        guard case let .connected(keys) = state, let remote = transport.remote else { throw .transport("\(state)") }
        do {
            let configuration = try NegotiatedPublishing.configuration(
                camera: options.camera, session: negotiated, firstVideoSSRC: firstVideoSSRC, audioSSRC: audioSSRC,
                keys: (keys.local, keys.remote), cname: options.display)
            publisher = try Publisher(configuration: configuration, transport: try UDPTransport(socket: transport, destination: remote),
                                      clock: clock, using: &random)
        } catch {
            throw .configuration("\(error)")
        }
        self.janus = janus
        started = true
    }

    /// Keeps the Janus session alive: call at least every 30 s.
    public func keepAlive() throws(JanusHTTPClient.Failure) { try janus.keepAlive() }

    /// Says goodbye (RTCP BYE), unpublishes and leaves the room.
    public func leave() {
        try? publisher.sendGoodbye(reason: "left")
        _ = try? janus.message(["request": "leave"])
        janus.close()
    }

    /// The room's participants as Janus lists them.
    public func participants(room: Int) throws(JanusHTTPClient.Failure) -> [[String: Any]] {
        let reply = try janus.message(["request": "listparticipants", "room": room])
        return (Self.pluginData(reply)?["participants"] as? [[String: Any]]) ?? []
    }

    /// ICE-TCP (RFC 6544): connects from `localAddress` to the first passive TCP candidate Janus
    /// offered and makes that connection the ICE transport, the candidate its one remote.
    static func connectICETCP(to candidates: [ICECandidate], from localAddress: UInt32, agent: ICEAgent,
                              clock: MediaClock) throws(Failure) -> ICEDatagramTransport {
        guard let passive = candidates.first(where: { candidate in
            candidate.transport.lowercased() == "tcp" && candidate.extensions.contains { $0.name == "tcptype" && $0.value == "passive" }
                && NetworkEndpoint.ipv4Address(candidate.address) != nil
        }), let address = NetworkEndpoint.ipv4Address(passive.address) else {
            throw .transport("Janus offered no IPv4 passive ICE-TCP candidate (janus.jcfg needs ice_tcp = true and ice_lite = true)")
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

    static func pluginData(_ event: [String: Any]) -> [String: Any]? {
        (event["plugindata"] as? [String: Any])?["data"] as? [String: Any]
    }

    static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

}
