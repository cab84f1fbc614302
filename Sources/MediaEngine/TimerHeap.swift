/// Deadlines by key, earliest first: a binary min-heap (an array, children of `i` at `2i + 1` and
/// `2i + 2`) with each key's position remembered, so scheduling, moving or cancelling a key's
/// deadline is O(log n) and the earliest is O(1). One deadline per key: scheduling a key again
/// moves its deadline. Ties leave in no particular order. Not thread-safe (the loop's own).
struct TimerHeap<Key: Hashable> {
    private var entries: [(key: Key, deadline: Int64)] = []
    private var positions: [Key: Int] = [:]

    init() {}

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest deadline and its key; nil when nothing is scheduled.
    var earliest: (key: Key, deadline: Int64)? { entries.first }

    /// The deadline scheduled for `key`, if any.
    func deadline(of key: Key) -> Int64? { positions[key].map { entries[$0].deadline } }

    /// Schedules `key` at `deadline`, moving its deadline if it had one.
    mutating func schedule(_ key: Key, at deadline: Int64) {
        if let index = positions[key] {
            let previous = entries[index].deadline
            entries[index].deadline = deadline
            if deadline < previous { siftUp(index) } else { siftDown(index) }
            return
        }
        entries.append((key, deadline))
        positions[key] = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Cancels `key`'s deadline; false if it had none.
    @discardableResult
    mutating func cancel(_ key: Key) -> Bool {
        guard let index = positions.removeValue(forKey: key) else { return false }
        let last = entries.removeLast()
        guard index < entries.count else { return true }
        entries[index] = last
        positions[last.key] = index
        siftDown(index)
        siftUp(index)
        return true
    }

    /// Removes and returns the earliest entry if it is due at `now` (deadline ≤ now).
    mutating func popDue(now: Int64) -> (key: Key, deadline: Int64)? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        cancel(first.key)
        return first
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard entries[index].deadline < entries[parent].deadline else { return }
            swapEntries(index, parent)
            index = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            let left = 2 * index + 1, right = left + 1
            var smallest = index
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != index else { return }
            swapEntries(index, smallest)
            index = smallest
        }
    }

    private mutating func swapEntries(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        positions[entries[a].key] = a
        positions[entries[b].key] = b
    }
}
