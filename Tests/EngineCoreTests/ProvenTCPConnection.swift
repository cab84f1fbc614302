import RTPWire
@testable import EngineCore

/// Why a test's TCP connection could not prove itself to a node.
struct ConnectionNotProven: Error, CustomStringConvertible {
    var description: String
}

extension UDPAndTCPTransport {
    /// A client connection this node has verified (issue 25): fresh credentials the node expects,
    /// the credentialed STUN check sent first, the node's reading of it, and its answer taken off
    /// the connection, so what the client reads next is what the node sends it.
    func connectProven(seed: UInt64 = 25, socketBufferBytes: Int = 64 * 1024) throws -> TCPFramedConnection {
        var random = SplitMix64(seed: seed)
        let credentials = ICECredentials.random(using: &random)
        expectConnection(from: credentials)
        let connection = try TCPFramedConnection.connect(to: tcpEndpoint, socketBufferBytes: socketBufferBytes)
        let transaction = STUNTransactionID.random(using: &random)
        try connection.send(STUNBindingCheck.request(transactionID: transaction, credentials: credentials), to: connection.peer)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<100 where verifiedPeer(usernameFragment: credentials.usernameFragment) == nil {
            _ = try receive(into: &buffer, timeoutMilliseconds: 20)
        }
        guard verifiedPeer(usernameFragment: credentials.usernameFragment) == connection.localEndpoint else {
            throw ConnectionNotProven(description: "the node did not verify the connection from \(connection.localEndpoint)")
        }
        guard let answer = try connection.receive(into: &buffer, timeoutMilliseconds: 1_000),
              STUNBindingCheck.isSuccess(buffer[0..<answer.count], answering: transaction) else {
            throw ConnectionNotProven(description: "no success response to the check")
        }
        return connection
    }
}
