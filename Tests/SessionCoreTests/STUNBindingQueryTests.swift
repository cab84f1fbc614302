import RTPWire
import Testing
@testable import SessionCore

/// A server-reflexive query against a scripted server: the answer's address, the RFC 8489
/// §6.2.1 retransmission schedule on a manual clock, error answers and datagrams that are not
/// the answer (another transaction, garbage) left alone.
@Suite struct STUNBindingQueryTests {
    static let id = STUNTransactionID([UInt8](1...12))!

    static func answer(_ messageClass: STUNClass, _ attributes: [STUNAttribute], id: STUNTransactionID = id) throws -> [UInt8] {
        try STUNMessage(type: STUNMessageType(method: .binding, messageClass: messageClass), transactionID: id,
                        attributes: attributes).serialized()
    }

    @Test func theSuccessAnswersWithTheMappedAddress() throws {
        var query = STUNBindingQuery(transactionID: Self.id, now: 0)
        let request = try STUNMessage(parsing: query.request)
        #expect(request.type == STUNMessageType(method: .binding, messageClass: .request) && request.transactionID == Self.id)
        let mapped = STUNAddress.ipv4(0xC633_6407, port: 61_000)  // 198.51.100.7
        #expect(!query.handle(try Self.answer(.successResponse, [.xorMappedAddress(mapped)],
                                              id: STUNTransactionID([UInt8](repeating: 9, count: 12))!)[...]))
        #expect(!query.handle([0x80, 0x60, 0, 0][...]) && query.state == .waiting)
        #expect(query.handle(try Self.answer(.successResponse, [.xorMappedAddress(mapped)])[...]))
        #expect(query.state == .mapped(mapped) && query.nextDeadline == nil)
        #expect(!query.handle(try Self.answer(.successResponse, [.xorMappedAddress(mapped)])[...]))  // already answered
    }

    @Test func silenceMeansSevenSendsThenTheLastWaitThenNoResponse() {
        var query = STUNBindingQuery(transactionID: Self.id, now: 0)
        var sends = [Int64(0)]
        while let deadline = query.nextDeadline {
            #expect(query.poll(now: deadline - 1) == nil)
            if query.poll(now: deadline) != nil { sends.append(deadline) }
        }
        // 0, RTO, 3 RTO, 7 RTO, ... (RTO 500 ms), then 16 RTO after the 7th send (39.5 s in all).
        #expect(sends == [0, 500_000, 1_500_000, 3_500_000, 7_500_000, 15_500_000, 31_500_000])
        #expect(query.state == .failed(.noResponse(sends: 7)))
        var reliable = STUNBindingQuery(transactionID: Self.id, reliable: true, now: 0)
        #expect(reliable.nextDeadline == 39_500_000 && reliable.poll(now: 39_500_000) == nil)
        #expect(reliable.state == .failed(.noResponse(sends: 1)))
    }

    @Test func errorAnswersAndMissingAddressesAreTypedFailures() throws {
        var refused = STUNBindingQuery(transactionID: Self.id, now: 0)
        #expect(refused.handle(try Self.answer(.errorResponse, [.errorCode(code: 400, reason: "Bad\u{1B}[2J Request")])[...]))
        #expect(refused.state == .failed(.errorResponse(code: 400, reason: "Bad[2J Request")))
        var empty = STUNBindingQuery(transactionID: Self.id, now: 0)
        #expect(empty.handle(try Self.answer(.successResponse, [])[...]))
        guard case .failed(.malformedResponse) = empty.state else {
            Issue.record("expected a malformed-response failure, got \(empty.state)")
            return
        }
    }
}
