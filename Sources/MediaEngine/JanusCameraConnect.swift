import Foundation
internal import EngineCore
import Simulcast

/// How a camera gets into a Janus VideoRoom (`JanusRoomRuntime`): joins as a publisher over
/// Janus's HTTP API and connects ICE + DTLS-SRTP (`JanusVideoRoomPublisher`), over UDP or ICE-TCP
/// (RFC 6544) as `preferredProtocol` says: `.udpOverTCP` gives UDP 2 s, then joins again over
/// ICE-TCP. Blocking (typically well under a second, at most the timeouts): it runs on the
/// `SignallingWorker`, never on the engine's loop.
struct JanusCameraConnect: Sendable {
    let url: URL
    let room: Int
    let display: String
    let camera: LayerPlan
    let audio: Bool
    /// A screen share as the peer connection's second video m-line (`JanusScreenShare`).
    let screenShare: LayerPlan?
    let localAddress: UInt32
    let iceServers: [ICEServer]
    let iceTransportPolicy: ICETransportPolicy
    let preferredProtocol: PreferredProtocol

    /// A connected publication, what it runs over, and the switch to ICE-TCP if UDP failed first.
    struct Connected {
        let session: JanusVideoRoomPublisher
        let transportProtocol: TransportProtocol
        let protocolSwitch: ProtocolSwitch?
    }

    func run() -> Result<Connected, EngineError> {
        let started = monotonicMicroseconds()
        do throws(JanusVideoRoomPublisher.Failure) {
            let session = try connect(iceTCP: preferredProtocol == .tcpOnly,
                                      timeoutMilliseconds: preferredProtocol == .udpOverTCP ? 2_000 : 5_000)
            return .success(Connected(session: session, transportProtocol: preferredProtocol == .tcpOnly ? .tcp : .udp, protocolSwitch: nil))
        } catch let failure {
            guard preferredProtocol == .udpOverTCP, case .transport = failure else {
                return .failure(.systemFailure("joining Janus room \(room) at \(url): \(failure)"))
            }
            // UDP did not connect (ICE or DTLS): the same again over ICE-TCP.
            do throws(JanusVideoRoomPublisher.Failure) {
                let session = try connect(iceTCP: true, timeoutMilliseconds: 5_000)
                let change = ProtocolSwitch(connection: .publishing, from: .udp, to: .tcp,
                                            afterMilliseconds: (monotonicMicroseconds() - started) / 1000)
                return .success(Connected(session: session, transportProtocol: .tcp, protocolSwitch: change))
            } catch {
                return .failure(.systemFailure("joining Janus room \(room) at \(url) over UDP (\(failure)) and then ICE-TCP: \(error)"))
            }
        }
    }

    private func connect(iceTCP: Bool, timeoutMilliseconds: Int64) throws(JanusVideoRoomPublisher.Failure) -> JanusVideoRoomPublisher {
        var options = JanusVideoRoomPublisher.Options(url: url, room: room, display: display, camera: camera, audio: audio,
                                                      localAddress: localAddress, connectTimeoutMilliseconds: timeoutMilliseconds,
                                                      iceTCP: iceTCP)
        options.screenShare = screenShare
        options.iceServers = iceServers
        options.iceTransportPolicy = iceTransportPolicy
        return try JanusVideoRoomPublisher(options: options)
    }
}
