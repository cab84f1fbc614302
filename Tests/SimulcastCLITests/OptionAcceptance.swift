extension SimulcastExecutable {
    /// Whether the command accepts the option that `arguments` end with, after `--help`
    /// (`sub [leading arguments] --help --option`): `--help` is honoured only once every other
    /// argument parsed, so exit 0 means the option is known. Tried with a value first (most
    /// options take one), then bare for a flag (a flag followed by `1` reads it as a stray argument).
    func acceptsOption(_ arguments: [String]) throws -> Bool {
        if try run(arguments + ["1"], timeoutSeconds: 30).status == 0 { return true }
        return try run(arguments, timeoutSeconds: 30).status == 0
    }
}
