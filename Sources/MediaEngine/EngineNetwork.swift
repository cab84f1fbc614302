internal import EngineCore
internal import RTPWire
internal import SessionCore

/// Where the runtime gets the sockets of a hosted room (issue 27 item 4: the network is
/// injected, as the clock and the random source are): each forwarding node's socket, and each
/// participant's connection to a node. `LoopbackEngineNetwork` binds real sockets on 127.0.0.1;
/// `SimulatedEngineNetwork` hands out ports of an in-memory `SimulatedNetwork` on virtual time.
/// Backends that reach another machine (Janus, plain RTP) open their own sockets. Loop-confined.
protocol EngineNetwork: AnyObject {
    /// A new forwarding node's socket.
    func makeNodeSocket(clock: MediaClock) throws(NetworkError) -> any RoomNodeSocket

    /// `participantId`'s new `connection` to `node`, the way `preference` says, proving itself
    /// with `credentials` where it connects over TCP; `random` picks its STUN transaction ID.
    func makeMediaPath(_ connection: MediaConnection, of participantId: String, to node: any RoomNodeSocket,
                       preference: TransportPreference, credentials: ICECredentials, clock: MediaClock,
                       random: inout EngineRandom) throws(NetworkError) -> any MediaPathSocket
}
