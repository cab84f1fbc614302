internal import EngineCore
import Foundation
import MediaCodecs
internal import RTPWire
internal import SessionCore
import Simulcast
import SRTP

/// Everything the engine runs, confined to the loop thread (`EngineLoop`, or the virtual-time
/// driver): its rooms and, through them, every publisher, forwarding node and subscriber. What
/// it reads the time from, draws random numbers from and opens hosted rooms' sockets on is
/// injected (issue 27 item 4); nothing in it reads a global clock or random source.
final class EngineRuntime {
    private(set) var rooms: [String: any RoomBackend] = [:]
    private var nextRoomNumber = 1
    /// Where Janus's HTTP signalling and connects run, off the loop (the loop sets its own).
    var signalling = SignallingWorker { _ in false }
    /// The time every endpoint of the engine reads.
    let clock: MediaClock
    /// Every random number of the engine (endpoints take it `inout`).
    var random: EngineRandom
    /// Where hosted rooms get their nodes' and participants' sockets.
    let network: any EngineNetwork
    /// Every event a hosted room's participant is told, as it is told (the virtual-time driver
    /// keeps them for tests to read at once); nil in production.
    var eventTap: ((_ participantId: String, _ event: ParticipantEvent) -> Void)?

    /// The system clock, the system random source, real sockets on loopback.
    convenience init() {
        self.init(clock: .system, random: .system, network: LoopbackEngineNetwork())
    }

    init(clock: MediaClock, random: EngineRandom, network: any EngineNetwork) {
        self.clock = clock
        self.random = random
        self.network = network
    }

    /// Starts hosting a room on 127.0.0.1.
    func hostRoom(options: RoomOptions) -> RoomRuntime {
        let id = "room-\(nextRoomNumber)"
        nextRoomNumber += 1
        let room = RoomRuntime(id: id, options: options, clock: clock)
        rooms[id] = room
        return room
    }

    /// Joins a Janus VideoRoom (its HTTP API at `url`); ICE binds `localAddress`.
    func joinJanusRoom(url: URL, room: Int, localAddress: UInt32, iceServers: [ICEServer], iceTransportPolicy: ICETransportPolicy = .all,
                       e2ee: E2EEOptions?, preferredProtocol: PreferredProtocol, autoConsume: Bool = true) -> JanusRoomRuntime {
        let id = "janus-\(nextRoomNumber)"
        nextRoomNumber += 1
        let runtime = JanusRoomRuntime(id: id, url: url, room: room, localAddress: localAddress, iceServers: iceServers,
                                       iceTransportPolicy: iceTransportPolicy, e2ee: e2ee, preferredProtocol: preferredProtocol,
                                       autoConsume: autoConsume, signalling: signalling, clock: clock)
        rooms[id] = runtime
        return runtime
    }

    /// Opens a plain RTP output (checks the options, binds its socket); publishing comes next.
    func openPlainRTPOutput(options: PlainRTPOptions) throws(EngineError) -> PlainRTPRuntime {
        let id = "plain-rtp-\(nextRoomNumber)"
        let output = try PlainRTPRuntime(id: id, options: options, runtime: self)
        nextRoomNumber += 1
        rooms[id] = output
        return output
    }

    func closeRoom(_ id: String) {
        rooms.removeValue(forKey: id)?.close()
        schedule.forget(id)
    }

    /// Fresh SRTP master key and salt for the hops of a hosted room (engine to engine: the
    /// engine's most preferred suite, AEAD_AES_128_GCM where libsrtp runs it), from the engine's
    /// random source.
    func freshKeys() throws(EngineError) -> SRTPKeyingMaterial {
        let suite = SRTPSuite.preferredSupported.first ?? .default
        do {
            return try SRTPKeyingMaterial(suite: suite, keyAndSalt: freshKeyAndSalt(for: suite))
        } catch {
            throw .systemFailure("SRTP keys: \(error)")
        }
    }

    /// The answer to a receiver's SDES offer (RFC 4568 §7.1.2), with a key of ours from the
    /// engine's random source.
    func answerSDES(_ offered: [String]) throws(SRTPError) -> SDESNegotiation.Agreement {
        try SDESNegotiation.answer(offered: offered, using: &random)
    }

    /// Fresh SRTP master key || salt bytes for `suite`, from the engine's random source.
    func freshKeyAndSalt(for suite: SRTPSuite) -> [UInt8] {
        (0..<suite.keyingMaterialLength).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// A random SSRC base (RFC 3550 §8.1: SSRCs are chosen at random).
    func randomSSRC() -> UInt32 { UInt32.random(in: 0x1000_0000...0xEFFF_0000, using: &random) & ~0xF }

    /// A media connection to a hosted room's node that takes `preference`'s way (docs/joining-a-room.md): fresh
    /// credentials the node expects from this connection over TCP (`UDPAndTCPTransport`), and the
    /// UDP check's STUN transaction ID (RFC 8489 §5), from the engine's random source; the
    /// socket from the engine's network.
    func mediaPath(_ connection: MediaConnection, of participantId: String, preference: PreferredProtocol,
                   node: any RoomNodeSocket) throws(NetworkError) -> MediaPathRuntime {
        let credentials = ICECredentials.random(using: &random)
        node.expectConnection(from: credentials)
        do {
            let transport = try network.makeMediaPath(connection, of: participantId, to: node, preference: preference.transportPreference,
                                                      credentials: credentials, clock: clock, random: &random)
            return MediaPathRuntime(connection: connection, transport: transport, credentials: credentials, node: node)
        } catch {
            node.forgetConnection(usernameFragment: credentials.usernameFragment)
            throw error
        }
    }

    /// Which rooms a pass serves and when the next one is due (`RoomSchedule`).
    private var schedule = RoomSchedule()

    /// What the loop waits for after a pass: every room's sockets, appended to `descriptors`, and
    /// the earliest deadline (nil: nothing to serve, sleep until a job).
    func readiness(now: Int64, into descriptors: inout [Int32]) -> Int64? {
        schedule.list(rooms, now: now, into: &descriptors)
    }

    /// One pass: every room after a wake-up (`everyRoom`), else the rooms of the descriptors at
    /// `readyIndices` (positions in the last `readiness` list) and those due.
    func tick(everyRoom: Bool = true, readyIndices: [Int] = []) {
        schedule.serve(rooms, now: clock.monotonicMicroseconds(), everyRoom: everyRoom, readyIndices: readyIndices, runtime: self)
    }

    /// The engine stops: every room says goodbye and closes its participants' streams.
    func shutdown() {
        for room in rooms.values { room.close() }
        rooms.removeAll()
    }
}
