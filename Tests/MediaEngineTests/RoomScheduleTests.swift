import EngineCore
import MediaCodecs
import Testing
@testable import MediaEngine

/// Which rooms a pass of the loop serves (`RoomSchedule`): all after a wake-up, else only those
/// whose socket became readable or whose deadline came; the wait lasts until the earliest deadline.
@Suite struct RoomScheduleTests {
    /// A room that counts its passes, lists `descriptors` and asks for `deadline` next.
    final class CountingRoom: PublishOnlyRoomBackend {
        let receivingUnsupported = EngineError.notAllowed("test room")
        var descriptors: [Int32]
        var listsAll = true
        var deadline: Int64
        var passes = 0

        init(descriptors: [Int32], deadline: Int64) {
            self.descriptors = descriptors
            self.deadline = deadline
        }

        func join(_ participantId: String, events: AsyncStream<ParticipantEvent>.Continuation, keyProvider: E2EEKeyProvider?,
                  runtime: EngineRuntime) throws(EngineError) {}
        func leave(_ participantId: String) {}
        func publishCamera(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                           runtime: EngineRuntime) throws(EngineError) { throw receivingUnsupported }
        func publishMicrophone(_ participantId: String, trackId: String, feed: TrackFeed<AudioFrame>,
                               runtime: EngineRuntime) throws(EngineError) { throw receivingUnsupported }
        func setMicrophoneMuted(_ muted: Bool, participant participantId: String) throws(EngineError) {}
        func videoPublisher(of key: String) throws(EngineError) -> Publisher { throw receivingUnsupported }
        func tick(runtime: EngineRuntime) { passes += 1 }
        func close() {}
        func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
            descriptors += self.descriptors
            return listsAll
        }
        func nextDeadline(now: Int64) -> Int64 { deadline }
    }

    @Test func aReadySocketOrADueDeadlineServesItsRoomOnly() {
        let runtime = EngineRuntime()
        let a = CountingRoom(descriptors: [10, 11], deadline: 5_000), b = CountingRoom(descriptors: [20], deadline: 9_000)
        let rooms: [String: any RoomBackend] = ["a": a, "b": b]
        var schedule = RoomSchedule()
        schedule.serve(rooms, now: 0, everyRoom: true, readyIndices: [], runtime: runtime)
        #expect(a.passes == 1 && b.passes == 1)
        var descriptors: [Int32] = []
        #expect(schedule.list(rooms, now: 0, into: &descriptors) == 5_000)
        #expect(descriptors.sorted() == [10, 11, 20])

        // b's socket became readable: b only.
        let bIndex = descriptors.firstIndex(of: 20)!
        schedule.serve(rooms, now: 100, everyRoom: false, readyIndices: [bIndex], runtime: runtime)
        #expect(a.passes == 1 && b.passes == 2)
        // Nothing ready, a's deadline came: a only, once even when both ways name it.
        descriptors.removeAll()
        _ = schedule.list(rooms, now: 5_000, into: &descriptors)
        let aIndex = descriptors.firstIndex(of: 11)!
        a.deadline = 20_000
        schedule.serve(rooms, now: 5_000, everyRoom: false, readyIndices: [aIndex], runtime: runtime)
        #expect(a.passes == 2 && b.passes == 2)
        descriptors.removeAll()
        #expect(schedule.list(rooms, now: 5_000, into: &descriptors) == 9_000)
    }

    @Test func nothingScheduledSleepsUntilWokenAndAnUnlistedSocketKeepsTheActiveGrain() {
        let runtime = EngineRuntime()
        let quiet = CountingRoom(descriptors: [30], deadline: .max)
        var schedule = RoomSchedule()
        var descriptors: [Int32] = []
        schedule.serve(["quiet": quiet], now: 0, everyRoom: true, readyIndices: [], runtime: runtime)
        #expect(schedule.list(["quiet": quiet], now: 0, into: &descriptors) == nil)
        // A room that cannot list all its sockets is served this often at the latest.
        quiet.listsAll = false
        descriptors.removeAll()
        #expect(schedule.list(["quiet": quiet], now: 1_000, into: &descriptors) == 1_000 + RoomBackendCadence.unlistedSocketsMicroseconds)
        // A closed room's deadline goes.
        schedule.forget("quiet")
        descriptors.removeAll()
        #expect(schedule.list([:], now: 1_000, into: &descriptors) == nil)
    }
}
