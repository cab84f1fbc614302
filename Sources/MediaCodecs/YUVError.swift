/// A libyuv failure: the non-zero `int` a conversion or scaling call returned (libyuv returns
/// -1 for invalid arguments), and the call's name.
///
/// Every libyuv return code in this module is checked through `YUVError.check(_:call:)`.
public struct YUVError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The raw return value of the libyuv function.
    public let rawValue: Int32
    /// The libyuv function that failed, e.g. `"I420Scale"`.
    public let call: String

    /// An error with the given return value and no call name.
    public init(rawValue: Int32) { self.init(rawValue: rawValue, call: "") }
    /// An error naming the libyuv call that returned `rawValue`.
    public init(rawValue: Int32, call: String) {
        self.rawValue = rawValue
        self.call = call
    }

    /// libyuv's generic failure (`-1`: invalid argument such as a null plane or a zero size).
    public static let invalidArgument = YUVError(rawValue: -1)

    /// Errors compare by return value only; `call` is a diagnostic.
    public static func == (lhs: YUVError, rhs: YUVError) -> Bool { lhs.rawValue == rhs.rawValue }
    /// Hashes the return value only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The call and its return value.
    public var description: String { "\(call.isEmpty ? "libyuv" : call) returned \(rawValue)" }

    /// The single mapping from a libyuv return code (0 = success) to a thrown `YUVError`.
    @inline(__always)
    static func check(_ code: Int32, call: String) throws(YUVError) {
        guard code == 0 else { throw YUVError(rawValue: code, call: call) }
    }
}
