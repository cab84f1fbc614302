/// Whether a local track is pulling frames from a played source (package-visible: the
/// virtual-time driver of `MediaEngineTesting` waits for `play(from:)` to attach its source
/// before it moves time, so a run never depends on when the playing task got scheduled).
extension LocalVideoTrack {
    package var isPlayingSource: Bool { feed.isPlayingSource }
}

extension LocalAudioTrack {
    package var isPlayingSource: Bool { feed.isPlayingSource }
}
