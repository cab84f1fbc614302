/// A user-facing failure of a command (bad input that no library type describes).
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
