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

        public init(url: URL, room: Int, display: String = "engine", camera: LayerPlan, audio: Bool = true,
                    localAddress: UInt32, connectTimeoutMilliseconds: Int64 = 5_000) {
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
        let socket: UDPSocket
        do {
            certificate = try DTLSCertificate()
            socket = try UDPSocket(bindingTo: NetworkEndpoint(address: options.localAddress, port: 0))
            try socket.setReceiveBufferSize(1 << 20)
        } catch {
            throw .transport("\(error)")
        }
        var random = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        let agent = ICEAgent(configuration: .init(local: credentials, role: .controlling, tieBreaker: UInt64.random(in: 1...UInt64.max)),
                             seed: UInt64.random(in: 0...UInt64.max))
        let ice = ICEDatagramTransport(socket: socket, agent: agent, clock: clock)
        let audioSSRC = UInt32.random(in: 0x1000_0000...0x7FFF_FFFF), firstVideoSSRC = UInt32.random(in: 0x8000_0000...0xEFFF_0000)
        let local = socket.localEndpoint
        let offer = SimulcastOffer(
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)), ice: credentials, fingerprint: certificate.fingerprint,
            candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: Self.dotted(local.address),
                                      port: local.port, kind: .host)],
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
        for candidate in negotiated.remoteCandidates + trickled where candidate.transport == "udp" {
            guard let address = NetworkEndpoint.ipv4Address(candidate.address) else { continue }
            agent.addRemoteCandidate(.ipv4(address, port: candidate.port), priority: candidate.priority)
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

    static func pluginData(_ event: [String: Any]) -> [String: Any]? {
        (event["plugindata"] as? [String: Any])?["data"] as? [String: Any]
    }

    static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

}
