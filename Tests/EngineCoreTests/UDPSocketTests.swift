import Foundation
import Testing
@testable import EngineCore

@Suite struct NetworkEndpointTests {
    @Test func parsesSinglePort() throws {
        let endpoint = try NetworkEndpoint(parsing: "127.0.0.1:5004")
        #expect(endpoint == .loopback(port: 5004))
        #expect(endpoint.description == "127.0.0.1:5004")
    }

    @Test func parsesPortListLowestLayerFirst() throws {
        let endpoints = try NetworkEndpoint.parseList("localhost:5004,5006,5008")
        #expect(endpoints.map(\.port) == [5004, 5006, 5008])
    }

    @Test(arguments: ["", "5004", "host:5004", "1.2.3:5", "1.2.3.256:5", "1.2.3.4:", "1.2.3.4:x", "1.2.3.4:5,,6"])
    func rejectsMalformedAddresses(text: String) {
        #expect(throws: NetworkError.self) { try NetworkEndpoint.parseList(text) }
    }

    @Test func rejectsPortsOutOfRange() {
        #expect(throws: NetworkError.portOutOfRange(0)) { try NetworkEndpoint(parsing: "127.0.0.1:0") }
        #expect(throws: NetworkError.portOutOfRange(70000)) { try NetworkEndpoint(parsing: "127.0.0.1:70000") }
    }
}

@Suite struct UDPSocketTests {
    @Test func datagramCrossesLoopback() throws {
        let receiver = try UDPSocket()
        let sender = try UDPSocket()
        try sender.send([1, 2, 3, 4], to: receiver.localEndpoint)
        var buffer = [UInt8](repeating: 0, count: 1500)
        let received = try buffer.withUnsafeMutableBytes { try receiver.receive(into: $0, timeoutMilliseconds: 1000) }
        #expect(received?.count == 4)
        #expect(received?.from == sender.localEndpoint)
        #expect(Array(buffer.prefix(4)) == [1, 2, 3, 4])
    }

    @Test func receiveTimesOutWithNil() throws {
        let socket = try UDPSocket()
        var buffer = [UInt8](repeating: 0, count: 16)
        let received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0, timeoutMilliseconds: 10) }
        #expect(received == nil)
    }

    @Test func datagramLongerThanTheBufferIsDroppedAndCountedAndTheNextOneArrives() throws {
        let receiver = try UDPSocket()
        let sender = try UDPSocket()
        try sender.send([UInt8](repeating: 0xAB, count: 3000), to: receiver.localEndpoint)
        try sender.send([UInt8](repeating: 0x11, count: 100), to: receiver.localEndpoint)
        var buffer = [UInt8](repeating: 0, count: 2048)
        let received = try receiver.receive(into: &buffer, timeoutMilliseconds: 1000)
        #expect(received?.count == 100)
        #expect(buffer.prefix(100).allSatisfy { $0 == 0x11 })
        #expect(receiver.truncatedDatagrams == 1)
        // Nothing else is queued: the 3,000 bytes did not leak out in pieces.
        #expect(try receiver.receive(into: &buffer, timeoutMilliseconds: 0) == nil)
    }

    @Test func aDropAloneIsNotATimeoutWhileTimeRemains() throws {
        let receiver = try UDPSocket()
        let sender = try UDPSocket()
        try sender.send([UInt8](repeating: 0, count: 3000), to: receiver.localEndpoint)
        var buffer = [UInt8](repeating: 0, count: 2048)
        let destination = receiver.localEndpoint
        let late = Thread {
            usleep(100_000)
            try? UDPSocket().send([7], to: destination)
        }
        late.start()
        // The oversized datagram is dropped at once; the receive keeps waiting for the real one.
        let received = try receiver.receive(into: &buffer, timeoutMilliseconds: 5000)
        #expect(received?.count == 1)
        #expect(buffer[0] == 7)
        #expect(receiver.truncatedDatagrams == 1)
    }

    @Test func aDatagramExactlyTheBufferSizeIsNotTruncated() throws {
        let receiver = try UDPSocket()
        let sender = try UDPSocket()
        try sender.send([UInt8](repeating: 5, count: 2048), to: receiver.localEndpoint)
        var buffer = [UInt8](repeating: 0, count: 2048)
        #expect(try receiver.receive(into: &buffer, timeoutMilliseconds: 1000)?.count == 2048)
        #expect(receiver.truncatedDatagrams == 0)
    }

    @Test func bindingATakenPortIsATypedError() throws {
        let first = try UDPSocket()
        #expect(throws: NetworkError.self) { try UDPSocket(bindingTo: first.localEndpoint) }
    }

    @Test func sendingToAnUnroutableAddressIsATypedError() throws {
        let socket = try UDPSocket()
        // 0.0.0.0:9 from a loopback-bound socket cannot be routed.
        #expect(throws: NetworkError.self) {
            try socket.send([0], to: NetworkEndpoint(address: 0xFFFF_FFFF, port: 9))
        }
    }
}
