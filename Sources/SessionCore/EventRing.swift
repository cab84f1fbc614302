/// The most recent `capacity` events of a log that must not grow with the length of a call:
/// appending to a full ring forgets the oldest event (counted in `dropped`). Read it like an
/// array (oldest first), or `drain()` it to take what is there.
public struct EventRing<Element>: RandomAccessCollection {
    /// Events kept at most.
    public let capacity: Int
    /// Events appended since creation (kept, forgotten or drained).
    public private(set) var totalAppended = 0
    /// Events forgotten because the ring was full.
    public private(set) var dropped = 0
    private var storage: [Element] = []
    private var head = 0

    /// - Parameter capacity: at least 1.
    public init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count }

    public subscript(position: Int) -> Element {
        storage[(head + position) % storage.count]
    }

    /// Appends `event`, forgetting the oldest if full.
    public mutating func append(_ event: Element) {
        totalAppended += 1
        if storage.count < capacity {
            storage.append(event)
        } else {
            storage[head] = event
            head = (head + 1) % capacity
            dropped += 1
        }
    }

    /// Forgets every event kept (the counters stay).
    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
    }

    /// The events kept, oldest first, and empties the ring.
    public mutating func drain() -> [Element] {
        let events = Array(self)
        removeAll()
        return events
    }
}

extension EventRing: Sendable where Element: Sendable {}
