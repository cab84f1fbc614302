/// One `a=` line (RFC 8866 §5.13): a property (`a=sendrecv`) or a name and value (`a=mid:0`).
public struct SDPAttribute: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Reads the text after `a=`: the name runs to the first colon.
    init(line text: Substring) {
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            value = String(text[text.index(after: colon)...])
        } else {
            name = String(text)
            value = nil
        }
    }

    /// The text after `a=`.
    public var description: String { value.map { "\(name):\($0)" } ?? name }
}

extension Array where Element == SDPAttribute {
    /// The value of the first attribute named `name` (nil when absent or a property).
    public func value(of name: String) -> String? { first { $0.name == name }?.value }

    /// The values of every attribute named `name`, in order.
    public func values(of name: String) -> [String] { compactMap { $0.name == name ? $0.value : nil } }

    /// Whether a property or attribute named `name` is present.
    public func contains(_ name: String) -> Bool { contains { $0.name == name } }
}
