/// What a participant publishes into a room: its camera, its screen share or its microphone.
public enum PublishedTrackKind: String, Sendable, Hashable, CaseIterable {
    case camera
    case screenShare
    case microphone
}

/// One track a remote participant publishes, as the room reports it (SPEC §8).
public struct PublishedTrack: Sendable, Hashable, CustomStringConvertible {
    public var kind: PublishedTrackKind
    /// The publisher muted it (a microphone muted with `setMuted`, or a stream Janus lists as disabled).
    public var muted: Bool

    public init(kind: PublishedTrackKind, muted: Bool = false) {
        self.kind = kind
        self.muted = muted
    }

    public var description: String { "\(kind.rawValue)\(muted ? " (muted)" : "")" }
}

/// Another participant of the room as this participant knows it (SPEC §8, the seeds'
/// `room.participants` entry): its id, its display name and what it publishes.
public struct RemoteParticipant: Sendable, Hashable, CustomStringConvertible {
    public var id: String
    public var displayName: String
    /// Its published tracks, camera first, then screen share, then microphone.
    public var tracks: [PublishedTrack]

    public init(id: String, displayName: String, tracks: [PublishedTrack] = []) {
        self.id = id
        self.displayName = displayName
        self.tracks = tracks
    }

    /// The published track of `kind`, if any.
    public func track(_ kind: PublishedTrackKind) -> PublishedTrack? { tracks.first { $0.kind == kind } }

    public var description: String {
        "\(id) (\(displayName)) [\(tracks.map(\.description).joined(separator: ", "))]"
    }
}
