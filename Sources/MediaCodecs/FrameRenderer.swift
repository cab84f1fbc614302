/// A generated picture sequence of one size (`TestSceneRenderer`, `ScreenTestSceneRenderer`):
/// frame `n` is rendered into a caller's frame, so a loop can reuse one buffer.
public protocol FrameRenderer: AnyObject {
    /// Size of every rendered frame.
    var width: Int { get }
    /// Size of every rendered frame.
    var height: Int { get }
    /// Renders frame `n` into `frame`, reusing its storage.
    /// - Precondition: `frame` is the renderer's size.
    func render(_ n: Int, into frame: inout VideoFrame)
}

extension FrameRenderer {
    /// Frame `n` as a new frame.
    public func frame(_ n: Int) -> VideoFrame {
        var frame = VideoFrame(unchecked: width, height: height)
        render(n, into: &frame)
        return frame
    }
}
