internal import EngineCore
import Foundation
import MediaCodecs
internal import RTPWire
internal import SessionCore
import Simulcast
import SRTP

/// Everything the engine runs, confined to the loop thread (`EngineLoop`): its rooms and,
/// through them, every publisher, forwarding node and subscriber.
final class EngineRuntime {
    private(set) var rooms: [String: any RoomBackend] = [:]
    private var nextRoomNumber = 1
    private var random = SystemRandomNumberGenerator()
    /// Where Janus's HTTP signalling and connects run, off the loop (the loop sets its own).
    var signalling = SignallingWorker { _ in false }

    /// Starts hosting a room on 127.0.0.1.
    func hostRoom(options: RoomOptions) -> RoomRuntime {
        let id = "room-\(nextRoomNumber)"
        nextRoomNumber += 1
        let room = RoomRuntime(id: id, options: options)
        rooms[id] = room
        return room
    }

    /// Joins a Janus VideoRoom (its HTTP API at `url`); ICE binds `localAddress`.
    func joinJanusRoom(url: URL, room: Int, localAddress: UInt32, e2ee: E2EEOptions?,
                       preferredProtocol: PreferredProtocol) -> JanusRoomRuntime {
        let id = "janus-\(nextRoomNumber)"
        nextRoomNumber += 1
        let runtime = JanusRoomRuntime(id: id, url: url, room: room, localAddress: localAddress, e2ee: e2ee,
                                       preferredProtocol: preferredProtocol, signalling: signalling)
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
    /// engine's most preferred suite, AEAD_AES_128_GCM where libsrtp runs it), from the system
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
    /// system random source.
    func answerSDES(_ offered: [String]) throws(SRTPError) -> SDESNegotiation.Agreement {
        try SDESNegotiation.answer(offered: offered, using: &random)
    }

    /// Fresh SRTP master key || salt bytes for `suite`, from the system random source.
    func freshKeyAndSalt(for suite: SRTPSuite) -> [UInt8] {
        (0..<suite.keyingMaterialLength).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// A random SSRC base (RFC 3550 §8.1: SSRCs are chosen at random).
    func randomSSRC() -> UInt32 { UInt32.random(in: 0x1000_0000...0xEFFF_0000, using: &random) & ~0xF }

    /// A media connection to a hosted room's node that takes `preference`'s way (docs/joining-a-room.md): fresh
    /// credentials the node expects from this connection over TCP (`UDPAndTCPTransport`), and the
    /// UDP check's STUN transaction ID (RFC 8489 §5), from the system random source.
    func mediaPath(_ connection: MediaConnection, preference: PreferredProtocol,
                   node: UDPAndTCPTransport) throws(NetworkError) -> MediaPathRuntime {
        let credentials = ICECredentials.random(using: &random)
        node.expectConnection(from: credentials)
        do {
            let transport = try FallbackTransport(preference: preference.transportPreference, server: node.localEndpoint,
                                                  serverTCP: node.tcpEndpoint, credentials: credentials, using: &random)
            return MediaPathRuntime(connection: connection, transport: transport, node: node)
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
        schedule.serve(rooms, now: monotonicMicroseconds(), everyRoom: everyRoom, readyIndices: readyIndices, runtime: self)
    }

    /// The engine stops: every room says goodbye and closes its participants' streams.
    func shutdown() {
        for room in rooms.values { room.close() }
        rooms.removeAll()
    }
}
