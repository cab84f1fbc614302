/// Readable `RoomError`s. (Kept apart from `RoomNode.swift`, where the enum is declared.)
extension RoomError: CustomStringConvertible {
    /// What was wrong and what the room needs first.
    public var description: String {
        switch self {
        case let .unknownPublisher(id):
            return "the room has no publisher '\(id)': call addPublisher for it first"
        case let .unknownSubscriber(id):
            return "the room has no subscriber '\(id)': call addSubscriber for it first"
        }
    }
}
