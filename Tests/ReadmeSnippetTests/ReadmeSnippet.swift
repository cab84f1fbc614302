/// One ```swift block of README.md, compiled as a function by the `ReadmeSnippetsPlugin`.
struct ReadmeSnippet: Sendable {
    /// The README line its code starts on.
    let line: Int
    let run: @Sendable () async throws -> Void
}
