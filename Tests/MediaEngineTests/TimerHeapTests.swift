import RTPWire
import Testing
@testable import MediaEngine

/// The loop's deadlines (`TimerHeap`): earliest first, one per key, moved and cancelled in place.
@Suite struct TimerHeapTests {
    @Test func deadlinesLeaveEarliestFirst() {
        var heap = TimerHeap<String>()
        #expect(heap.earliest == nil && heap.isEmpty)
        for (key, deadline) in [("c", 30), ("a", 10), ("e", 50), ("b", 20), ("d", 40)] { heap.schedule(key, at: Int64(deadline)) }
        #expect(heap.count == 5)
        #expect(heap.earliest?.key == "a")
        let early = heap.popDue(now: 5)
        #expect(early == nil)  // nothing due yet
        var order: [String] = []
        while let due = heap.popDue(now: 100) { order.append(due.key) }
        #expect(order == ["a", "b", "c", "d", "e"])
        #expect(heap.isEmpty)
    }

    @Test func schedulingAKeyAgainMovesItsDeadline() {
        var heap = TimerHeap<Int>()
        for key in 0..<8 { heap.schedule(key, at: Int64(100 + key)) }
        heap.schedule(7, at: 1)  // earlier
        #expect(heap.earliest?.key == 7 && heap.count == 8)
        heap.schedule(7, at: 1_000)  // later
        heap.schedule(0, at: 500)
        #expect(heap.earliest?.key == 1)
        #expect(heap.deadline(of: 7) == 1_000 && heap.deadline(of: 0) == 500)
        var order: [Int] = []
        while let due = heap.popDue(now: .max) { order.append(due.key) }
        #expect(order == [1, 2, 3, 4, 5, 6, 0, 7])
    }

    @Test func cancellingKeepsTheRestInOrder() {
        var heap = TimerHeap<Int>()
        for key in 0..<20 { heap.schedule(key, at: Int64((key * 7) % 20)) }
        let cancelled = [heap.cancel(0), heap.cancel(13), heap.cancel(19), heap.cancel(0)]
        #expect(cancelled == [true, true, true, false])
        #expect(heap.deadline(of: 13) == nil)
        var deadlines: [Int64] = []
        while let due = heap.popDue(now: .max) { deadlines.append(due.deadline) }
        #expect(deadlines.count == 17 && deadlines == deadlines.sorted())
    }

    /// Against a plain sorted list, over random schedules, moves and cancels.
    @Test func agreesWithASortedListUnderRandomChanges() {
        var random = SplitMix64(seed: 27)
        var heap = TimerHeap<Int>()
        var reference: [Int: Int64] = [:]
        for _ in 0..<2_000 {
            let key = Int.random(in: 0..<64, using: &random)
            if Bool.random(using: &random) || reference[key] == nil {
                let deadline = Int64.random(in: 0..<10_000, using: &random)
                heap.schedule(key, at: deadline)
                reference[key] = deadline
            } else {
                let cancelled = heap.cancel(key)
                #expect(cancelled)
                reference[key] = nil
            }
            #expect(heap.count == reference.count)
            #expect(heap.earliest?.deadline == reference.values.min())
        }
    }
}
