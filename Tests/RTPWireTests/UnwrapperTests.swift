import Testing
@testable import RTPWire

@Suite struct UnwrapperTests {
    @Test func sequenceNumbersCountOnAcrossTheWrap() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect(unwrapper.unwrap(65534) == 65534)
        #expect(unwrapper.unwrap(65535) == 65535)
        #expect(unwrapper.unwrap(0) == 65536)
        #expect(unwrapper.unwrap(1) == 65537)
    }

    @Test func reorderedSequenceNumbersAcrossTheWrapKeepTheirPlace() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect(unwrapper.unwrap(65535) == 65535)
        #expect(unwrapper.unwrap(2) == 65538)
        #expect(unwrapper.unwrap(65534) == 65534)
        #expect(unwrapper.unwrap(1) == 65537)
        #expect(unwrapper.unwrap(0) == 65536)
    }

    @Test func sequenceNumbersSurviveManyWraps() {
        var unwrapper = SequenceNumberUnwrapper()
        var expected: Int64 = 100
        var seq: UInt16 = 100
        for _ in 0..<(5 * 65536 / 1000) {
            #expect(unwrapper.unwrap(seq) == expected)
            seq &+= 1000
            expected += 1000
        }
    }

    @Test func packetOlderThanTheFirstMapsBelowIt() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect(unwrapper.unwrap(0) == 0)
        #expect(unwrapper.unwrap(65535) == -1)
    }

    @Test func peekDoesNotChangeState() {
        var unwrapper = SequenceNumberUnwrapper()
        _ = unwrapper.unwrap(10)
        #expect(unwrapper.peek(5) == 5)
        #expect(unwrapper.last == 10)
    }

    @Test func timestampsCountOnAcrossTheWrap() {
        var unwrapper = TimestampUnwrapper()
        #expect(unwrapper.unwrap(UInt32.max - 2999) == Int64(UInt32.max) - 2999)
        #expect(unwrapper.unwrap(0) == Int64(UInt32.max) + 1)
        #expect(unwrapper.unwrap(3000) == Int64(UInt32.max) + 3001)
    }

    @Test func reorderedTimestampsAcrossTheWrapKeepTheirPlace() {
        let base = Int64(UInt32.max) + 1
        var fresh = TimestampUnwrapper()
        #expect(fresh.unwrap(UInt32.max - 100) == base - 101)
        #expect(fresh.unwrap(200) == base + 200)
        #expect(fresh.unwrap(UInt32.max) == base - 1)
        #expect(fresh.unwrap(50) == base + 50)
    }
}
