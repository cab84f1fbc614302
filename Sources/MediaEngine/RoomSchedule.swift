internal import EngineCore

/// Which rooms a pass of the loop serves, and until when the loop may sleep: every room's next
/// deadline (`RoomBackend.nextDeadline`, set after each of its passes) waits in one `TimerHeap`,
/// and each socket the loop waits on is remembered with the room it belongs to. A pass after a
/// wake-up (a job, a pushed frame) serves every room; a pass after readiness or a timeout serves
/// only the rooms whose socket became readable or whose deadline came. Loop-confined.
struct RoomSchedule {
    private var deadlines = TimerHeap<String>()
    /// The room of each descriptor the last `list` appended, in the same order.
    private var owners: [String] = []
    /// Scratch of `serve`: the rooms due this pass.
    private var due: [String] = []

    /// Appends every room's sockets to `descriptors` and returns the earliest deadline (nil:
    /// nothing scheduled, sleep until woken). A room that cannot list all its sockets is
    /// scheduled `RoomBackendCadence.unlistedSocketsMicroseconds` ahead at the latest.
    mutating func list(_ rooms: [String: any RoomBackend], now: Int64, into descriptors: inout [Int32]) -> Int64? {
        owners.removeAll(keepingCapacity: true)
        for (id, room) in rooms {
            let start = descriptors.count
            if !room.appendReadinessDescriptors(to: &descriptors) {
                let latest = now + RoomBackendCadence.unlistedSocketsMicroseconds
                if (deadlines.deadline(of: id) ?? .max) > latest { deadlines.schedule(id, at: latest) }
            }
            for _ in start..<descriptors.count { owners.append(id) }
        }
        return deadlines.earliest?.deadline
    }

    /// One pass: every room when `everyRoom` (woken), else the rooms owning a descriptor listed at
    /// `readyIndices` (positions in the last `list`) and those whose deadline is due at `now`.
    /// Each room served is scheduled again at its next deadline (`Int64.max`: none, until woken).
    mutating func serve(_ rooms: [String: any RoomBackend], now: Int64, everyRoom: Bool, readyIndices: [Int],
                        runtime: EngineRuntime) {
        due.removeAll(keepingCapacity: true)
        if everyRoom {
            for id in rooms.keys { due.append(id) }
        } else {
            for index in readyIndices where index < owners.count && !due.contains(owners[index]) { due.append(owners[index]) }
            while let entry = deadlines.popDue(now: now) {
                if !due.contains(entry.key) { due.append(entry.key) }
            }
        }
        for id in due {
            guard let room = rooms[id] else {
                deadlines.cancel(id)
                continue
            }
            room.tick(runtime: runtime)
            let next = room.nextDeadline(now: runtime.clock.monotonicMicroseconds())
            if next == .max { deadlines.cancel(id) } else { deadlines.schedule(id, at: next) }
        }
    }

    /// A room closed: its deadline goes.
    mutating func forget(_ id: String) { deadlines.cancel(id) }
}
