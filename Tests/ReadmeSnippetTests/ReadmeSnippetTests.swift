import Foundation
import Testing

/// The README's Swift snippets, extracted from README.md at build time (so they cannot drift
/// from it), compile against the `MediaEngine` product alone; the first one, the call a new
/// user copies first, also runs to its end: a hosted room, a camera, a viewer, the viewer's
/// events, and `engine.close()` reached.
@Suite(.serialized) struct ReadmeSnippetTests {
    @Test func theReadmeHasItsSnippets() {
        #expect(readmeSnippets.count >= 4, "README.md has \(readmeSnippets.count) ```swift blocks")
    }

    @Test func theFirstSnippetRunsToItsEnd() async throws {
        let first = try #require(readmeSnippets.first)
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await first.run()
                return true
            }
            group.addTask {
                try await Task.sleep(nanoseconds: 30_000_000_000)
                return false
            }
            let result = try await group.next() ?? false
            group.cancelAll()
            return result
        }
        #expect(finished, "README.md line \(first.line): the snippet did not finish within 30 s")
    }
}
