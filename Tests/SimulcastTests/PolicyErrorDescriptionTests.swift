import Testing
@testable import Simulcast

/// Policy errors read as sentences with the value and what is allowed (issue 11, item 5).
@Suite struct PolicyErrorDescriptionTests {
    @Test func anImpossibleEncoderSizeSaysTheLimits() {
        do {
            _ = try LayerPlan(width: 8, height: 8)
            Issue.record("8x8 was accepted")
        } catch {
            #expect(error.description
                    == "an encoder size of 8x8 is not supported: width must be 16 to 4096 and height 16 to 2304 pixels")
        }
    }

    @Test func aCapWhileTheCameraIsOffSaysWhatToDo() {
        var cap = WebcamQualityCap()
        do {
            try cap.setQuality(.low)
            Issue.record("the cap was set with the camera off")
        } catch {
            #expect(error.description == "the webcam quality cannot be set while the camera is off: turn the camera on first")
        }
    }
}
