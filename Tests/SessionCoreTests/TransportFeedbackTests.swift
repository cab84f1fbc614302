import RTPWire
import Testing
@testable import SessionCore

/// Transport-wide feedback between a recorder (receiver) and an adapter (sender), through RTCP bytes.
@Suite struct TransportFeedbackTests {
    /// Sends `count` packets 2 ms apart from sequence `first`; those in `lost` never arrive; the
    /// rest arrive 30 ms later plus `extraDelay(i)`. Returns the adapter's results of every report.
    static func exchange(first: UInt16 = 65_530, count: Int, lost: Set<Int> = [], extraDelay: (Int) -> Int64 = { _ in 0 })
        throws -> (results: [PacketResult], recorder: TransportFeedbackRecorder, adapter: TransportFeedbackAdapter) {
        var recorder = TransportFeedbackRecorder()
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        let start: Int64 = 5_000_000
        func report(at now: Int64) throws {
            guard let feedback = recorder.feedback(senderSSRC: 1, mediaSSRC: 2, nowMicroseconds: now) else { return }
            let bytes = try RTCPCompoundPacket(packets: [.transportWideFeedback(feedback)]).serialized()
            guard case let .transportWideFeedback(parsed)? = try RTCPCompoundPacket(parsing: bytes).packets.first else {
                Issue.record("feedback did not survive RTCP")
                return
            }
            results += adapter.results(from: parsed)
        }
        for index in 0..<count {
            let sequence = first &+ UInt16(index)
            let send = start + Int64(index) * 2_000
            adapter.sent(transportSequenceNumber: sequence, sendMicroseconds: send, bytes: 1_000 + index)
            if !lost.contains(index) {
                recorder.record(transportSequenceNumber: sequence, arrivalMicroseconds: send + 30_000 + extraDelay(index))
            }
            try report(at: send + 30_000)
        }
        try report(at: start + Int64(count) * 2_000 + 200_000)
        return (results, recorder, adapter)
    }

    @Test func everyPacketIsReportedOnceWithItsSendTimeAndArrivalDifferencesAcrossTheWrap() throws {
        let (results, _, adapter) = try Self.exchange(count: 200, lost: [10, 11, 150], extraDelay: { Int64($0 % 7) * 1_000 })
        #expect(results.count == 200)
        #expect(results.filter { $0.arrivalMicroseconds == nil }.count == 3)
        #expect(results.map(\.bytes) == (0..<200).map { 1_000 + $0 })
        // One-way delay differences survive the 250 µs quantization.
        let received = results.filter { $0.arrivalMicroseconds != nil }
        for (earlier, later) in zip(received, received.dropFirst()) {
            let sendGap = later.sendMicroseconds - earlier.sendMicroseconds
            let arrivalGap = later.arrivalMicroseconds! - earlier.arrivalMicroseconds!
            let expected = sendGap + (Int64((later.bytes - 1_000) % 7) - Int64((earlier.bytes - 1_000) % 7)) * 1_000
            #expect(abs(arrivalGap - expected) <= 250)
        }
        #expect(adapter.unknownPackets == 0 && adapter.malformedFeedback == 0)
    }

    @Test func lateDuplicateAndUnknownPacketsAreCountedNotReportedTwice() throws {
        var (_, recorder, adapter) = try Self.exchange(count: 50)
        recorder.record(transportSequenceNumber: 65_535, arrivalMicroseconds: 9_000_000)  // long reported
        #expect(recorder.lateArrivals == 1)
        let stale = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, referenceTime: 0, feedbackPacketCount: 9,
                                              packets: [.init(sequenceNumber: 65_531, receiveDelta: 4)])
        #expect(adapter.results(from: stale).isEmpty)  // already acknowledged
        let unknown = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, referenceTime: 0, feedbackPacketCount: 10,
                                                packets: [.init(sequenceNumber: 30_000, receiveDelta: 4)])
        #expect(adapter.results(from: unknown).isEmpty)
        #expect(adapter.unknownPackets == 2)
    }

    @Test func theRecorderKeepsAtMostItsCapacity() {
        var recorder = TransportFeedbackRecorder(capacity: 100)
        for index in 0..<10_000 {
            recorder.record(transportSequenceNumber: UInt16(index), arrivalMicroseconds: Int64(index) * 100)
        }
        let feedback = recorder.feedback(senderSSRC: 1, mediaSSRC: 2, nowMicroseconds: 1_000_000)
        #expect((feedback?.receiveDeltas.count ?? 0) <= 100)
    }
}
