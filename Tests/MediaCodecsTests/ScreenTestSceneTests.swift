import Testing
import MediaCodecs

@Suite struct ScreenTestSceneTests {
    @Test func framesArePureFunctionsOfSeedAndIndex() throws {
        let a = try ScreenTestScene(seed: 9).renderer(width: 640, height: 360)
        let b = try ScreenTestScene(seed: 9).renderer(width: 640, height: 360)
        for n in [0, 50, 130, 7] { #expect(a.frame(n) == b.frame(n)) }
        #expect(try ScreenTestScene(seed: 10).renderer(width: 640, height: 360).frame(0) != a.frame(0))
    }

    @Test func stillFramesAreIdenticalAndEveryChangeIsReported() throws {
        let scene = ScreenTestScene(seed: 2, frameRate: 10)
        let renderer = try scene.renderer(width: 640, height: 360)
        var previous = renderer.frame(0)
        for n in 1..<(2 * scene.cycleFrames + 5) {
            let frame = renderer.frame(n)
            #expect((frame != previous) == scene.differsFromPrevious(n), "frame \(n)")
            previous = frame
        }
    }

    @Test func timelineIsStillScrollingStillThenAFlip() {
        let scene = ScreenTestScene(seed: 1, frameRate: 15)
        #expect(scene.cycleFrames == 120)
        #expect(scene.phase(of: 0) == .still && scene.phase(of: 44) == .still)
        #expect(scene.phase(of: 45) == .scrolling && scene.phase(of: 74) == .scrolling)
        #expect(scene.phase(of: 75) == .still)
        #expect(scene.isSlideFlip(120) && !scene.isSlideFlip(0) && !scene.isSlideFlip(119))
        #expect(scene.slide(of: 119) == 0 && scene.slide(of: 120) == 1)
    }

    @Test func textRegionIsInsideTheScreenAndHoldsText() throws {
        let region = ScreenTestScene.textRegion(width: 1920, height: 1080)
        #expect(region.x >= 0 && region.y > 0 && region.x + region.width <= 1920 && region.y + region.height <= 1080)
        #expect(region.width * region.height > 1920 * 1080 / 2)
        let frame = try ScreenTestScene().renderer(width: 1920, height: 1080).frame(0)
        let text = frame.yPlane[(frame.yPlane.startIndex + region.y * frame.strideY)...]
            .prefix(region.height * frame.strideY)
        #expect(text.contains(30) && text.contains(235))
    }

    @Test func oversizedOrTinyScreensAreTypedErrors() {
        #expect(throws: VideoFrameError.tooLarge(width: 3840, height: 2160, maximumLongerEdge: 2560, maximumShorterEdge: 1440)) {
            try ScreenTestScene().renderer(width: 3840, height: 2160)
        }
        #expect(throws: VideoFrameError.invalidDimensions(width: 32, height: 32)) {
            try ScreenTestScene().renderer(width: 32, height: 32)
        }
    }
}
