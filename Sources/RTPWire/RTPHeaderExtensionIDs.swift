/// The local id negotiated for each extension kind (RFC 8285 §5 `a=extmap`), one stored byte per
/// kind so a packet-path lookup is a field read instead of a dictionary walk. 0 means "not
/// negotiated" (RFC 8285 §4.2: id 0 is never an element id).
struct RTPHeaderExtensionIDs: Sendable, Equatable {
    private var audioLevel: UInt8 = 0
    private var absSendTime: UInt8 = 0
    private var transportSequenceNumber: UInt8 = 0
    private var mid: UInt8 = 0
    private var rid: UInt8 = 0
    private var repairedRid: UInt8 = 0

    init() {}

    /// The reverse of `kindsByID`, keeping the smallest id when (impossibly) a kind has several.
    init(_ kindsByID: [UInt8: RTPHeaderExtensionKind]) {
        for (id, kind) in kindsByID {
            if let current = self[kind], current < id { continue }
            self[kind] = id
        }
    }

    subscript(kind: RTPHeaderExtensionKind) -> UInt8? {
        get {
            let id: UInt8
            switch kind {
            case .audioLevel: id = audioLevel
            case .absSendTime: id = absSendTime
            case .transportSequenceNumber: id = transportSequenceNumber
            case .mid: id = mid
            case .rid: id = rid
            case .repairedRid: id = repairedRid
            }
            return id == 0 ? nil : id
        }
        set {
            let id = newValue ?? 0
            switch kind {
            case .audioLevel: audioLevel = id
            case .absSendTime: absSendTime = id
            case .transportSequenceNumber: transportSequenceNumber = id
            case .mid: mid = id
            case .rid: rid = id
            case .repairedRid: repairedRid = id
            }
        }
    }
}
