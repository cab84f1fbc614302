/// Why a TURN allocation failed.
public enum TURNError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A 401 to a request that carried our credentials: the username or password is wrong.
    case wrongCredentials(reason: String)
    /// 486 Allocation Quota Reached.
    case allocationQuotaReached
    /// 437 Allocation Mismatch.
    case allocationMismatch
    /// Another error response to Allocate or Refresh.
    case refused(code: Int, reason: String)
    /// No response to Allocate or Refresh after every retransmission (or Ti on TCP).
    case noResponse(method: UInt16)
    case malformedResponse(String)

    public var description: String {
        switch self {
        case let .wrongCredentials(reason): return "TURN: credentials refused (401 \(reason))"
        case .allocationQuotaReached: return "TURN: allocation quota reached (486)"
        case .allocationMismatch: return "TURN: allocation mismatch (437)"
        case let .refused(code, reason): return "TURN: refused (\(code) \(reason))"
        case let .noResponse(method): return "TURN: no response to method 0x\(String(method, radix: 16))"
        case let .malformedResponse(what): return "TURN: \(what)"
        }
    }
}
