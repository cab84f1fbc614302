import Glibc
import Testing
@testable import EngineCore

/// The node's side of the TCP fallback (issue 18): what waits in a connection's send queue goes
/// out as soon as the reader catches up, even when the node has nothing new to send it (a viewer
/// back from a stall must not wait for the next packet to get the ones queued before it).
@Suite struct UDPAndTCPTransportTests {
    @Test func queuedDatagramsGoOutWhenTheReaderCatchesUpWithoutNewSends() throws {
        let node = try UDPAndTCPTransport()
        let reader = try node.connectProven()
        let connection = try #require(node.connection(for: reader.localEndpoint))
        // The reader does not read: the kernel's buffers fill, then the node's queue.
        let datagram = [UInt8](repeating: 0x90, count: 1_200)
        var sent = 0
        while connection.queuedBytes < 64 * 1024, sent < 2_000 {
            try node.send(datagram, to: reader.localEndpoint)
            sent += 1
        }
        let queued = connection.queuedBytes
        #expect(queued >= 64 * 1024 && connection.droppedForBackPressure == 0)
        // The reader catches up; the node only polls (nothing new to send, nothing from the reader).
        var buffer = [UInt8](repeating: 0, count: 1_500)
        var received = 0
        var idleRounds = 0
        while idleRounds < 20 {
            _ = try node.receive(into: &buffer, timeoutMilliseconds: 5)
            var gotSome = false
            while let got = try reader.receive(into: &buffer, timeoutMilliseconds: 5) {
                #expect(got.count == 1_200)
                received += 1
                gotSome = true
            }
            idleRounds = gotSome ? 0 : idleRounds + 1
        }
        print("stalled reader caught up: \(sent) datagrams sent, \(queued) bytes were queued at the node, \(received) received")
        #expect(received == sent && connection.queuedBytes == 0)
    }
}
