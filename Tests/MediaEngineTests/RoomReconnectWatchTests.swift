import Testing
@testable import MediaEngine
import SessionCore

/// `RoomReconnectWatch` on a simulated clock: which change each path state makes, when ICE
/// restarts are asked for, and when the room ends.
@Suite struct RoomReconnectWatchTests {
    static func path(_ kind: ReconnectingPath, _ state: PathLiveness.State, failed: Bool = false, moved: Bool = false) -> RoomReconnectWatch.Path {
        RoomReconnectWatch.Path(kind: kind, state: state, failed: failed, moved: moved)
    }

    @Test func aSilentPathReconnectsRestartsAfterThreeAndAHalfSecondsThenEveryFiveAndEndsAtThirty() {
        var watch = RoomReconnectWatch()
        let live = [Self.path(.publishing, .live), Self.path(.receiving, .live)]
        let silent = [Self.path(.publishing, .live), Self.path(.receiving, .silent)]
        #expect(watch.evaluate(live, nowMilliseconds: 0) == nil && watch.nextDeadlineMilliseconds == nil)
        #expect(watch.evaluate(silent, nowMilliseconds: 1_000) == .reconnecting(.receiving))
        #expect(watch.isReconnecting)
        var changes: [(Int64, RoomReconnectWatch.Change)] = []
        for now in stride(from: Int64(1_010), through: 40_000, by: 10) {
            if let change = watch.evaluate(silent, nowMilliseconds: now) { changes.append((now, change)) }
        }
        #expect(changes.map(\.0) == [4_500, 9_500, 14_500, 19_500, 24_500, 29_500, 31_000])
        #expect(changes.dropLast().allSatisfy { $0.1 == .restartICE })
        #expect(changes.last.map { if case .lost = $0.1 { true } else { false } } == true)
        #expect(!watch.isReconnecting && watch.evaluate(live, nowMilliseconds: 40_010) == nil)  // ended: nothing more
    }

    @Test func trafficBackReconnectsAndAMovedPathRestartsAtOnce() {
        var watch = RoomReconnectWatch()
        #expect(watch.evaluate([Self.path(.publishing, .silent)], nowMilliseconds: 0) == .reconnecting(.publishing))
        #expect(watch.evaluate([Self.path(.publishing, .live)], nowMilliseconds: 2_600) == .reconnected(afterMilliseconds: 2_600))
        #expect(!watch.isReconnecting)
        #expect(watch.evaluate([Self.path(.publishing, .live, moved: true)], nowMilliseconds: 5_000) == .reconnecting(.publishing))
        #expect(watch.nextDeadlineMilliseconds == 5_000)
        #expect(watch.evaluate([Self.path(.publishing, .live, moved: true)], nowMilliseconds: 5_001) == .restartICE)
        #expect(watch.evaluate([Self.path(.publishing, .live)], nowMilliseconds: 5_030) == .reconnected(afterMilliseconds: 30))
    }

    @Test func expiredConsentEndsTheRoomAtOnce() {
        var watch = RoomReconnectWatch()
        let change = watch.evaluate([Self.path(.receiving, .live, failed: true)], nowMilliseconds: 0)
        #expect(change.map { if case .lost = $0 { true } else { false } } == true)
        #expect(watch.hasEnded)
    }
}
