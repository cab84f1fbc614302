import MediaEngine

// What the README's snippets use without defining it, the way the prose around each one
// describes it. Only the first snippet runs (`ReadmeSnippetTests`); the others are compiled
// against the public API, so the names they take from here are never evaluated.

/// One 640x360 I420 frame (the first snippet's capture callback): mid-grey.
let bytes = [UInt8](repeating: 128, count: 640 * 360 * 3 / 2)

/// A 32-byte shared end-to-end key (the Janus snippet).
let key = [UInt8](repeating: 7, count: 32)

/// A 2560x1440 BGRA screen capture (the screen-share snippet).
let pixels = [UInt8](repeating: 0, count: 2560 * 1440 * 4)

/// The engine, participants and publication the Janus and screen-share snippets continue from.
var engine: MediaEngine { fatalError("README snippets after the first are compiled, not run") }
var alice: LocalParticipant { fatalError("README snippets after the first are compiled, not run") }
var bob: LocalParticipant { fatalError("README snippets after the first are compiled, not run") }
var publication: SFUPublication { fatalError("README snippets after the first are compiled, not run") }
