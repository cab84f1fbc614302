import Testing
@testable import Simulcast

private let view640 = VideoSize(width: 640, height: 360)

@Suite struct SubscriberPreferenceTests {
    @Test func defaultPreferenceIsHighQuality() {
        #expect(SubscriberPreference().effectivePreference(forPublisher: "a") == .quality(.high))
    }

    @Test func viewPortAfterQualityWins() {
        var preference = SubscriberPreference()
        preference.setQuality(.low)
        preference.setViewPort(width: 640, height: 360)
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
    }

    @Test func qualityAfterViewPortWins() {
        var preference = SubscriberPreference()
        preference.setViewPort(width: 640, height: 360)
        preference.setQuality(.medium)
        #expect(preference.effectivePreference(forPublisher: "a") == .quality(.medium))
    }

    @Test func manualForAllActsAsViewPortForEveryone() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.manual(.all, targetSize: view640))
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
        #expect(preference.effectivePreference(forPublisher: "b") == .viewPort(view640))
    }

    @Test func manualForIdSetAppliesOnlyToMembers() {
        var preference = SubscriberPreference()
        preference.setQuality(.low)
        preference.setIncomingVideo(.manual(.participants(["a", "b"]), targetSize: view640))
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
        #expect(preference.effectivePreference(forPublisher: "c") == .quality(.low))
    }

    @Test func disabledForAllDisablesEveryone() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.disabled(.all))
        #expect(preference.effectivePreference(forPublisher: "a") == .disabled)
        #expect(preference.effectivePreference(forPublisher: "zz") == .disabled)
    }

    @Test func disabledForIdSetDisablesOnlyMembers() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.disabled(.participants(["x"])))
        #expect(preference.effectivePreference(forPublisher: "x") == .disabled)
        #expect(preference.effectivePreference(forPublisher: "y") == .quality(.high))
    }

    @Test func newerGroupRuleWinsForItsMembers() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.disabled(.all))
        preference.setIncomingVideo(.manual(.participants(["a"]), targetSize: view640))
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
        #expect(preference.effectivePreference(forPublisher: "b") == .disabled)
    }

    @Test func ruleForAllReplacesEarlierRules() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.disabled(.participants(["a"])))
        preference.setIncomingVideo(.manual(.all, targetSize: view640))
        #expect(preference.incomingVideoRules.count == 1)
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
    }

    @Test func noneReturnsToAutomatic() {
        var preference = SubscriberPreference()
        preference.setViewPort(width: 320, height: 180)
        preference.setIncomingVideo(.disabled(.all))
        preference.setIncomingVideo(.none)
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(VideoSize(width: 320, height: 180)))
    }

    @Test func groupRuleOutlivesLaterAutomaticViewPort() {
        var preference = SubscriberPreference()
        preference.setIncomingVideo(.manual(.participants(["a"]), targetSize: view640))
        preference.setViewPort(width: 1920, height: 1080)
        #expect(preference.effectivePreference(forPublisher: "a") == .viewPort(view640))
    }

    @Test func shadowedIdRulesDoNotAccumulate() {
        var preference = SubscriberPreference()
        for _ in 0..<100 { preference.setIncomingVideo(.disabled(.participants(["a"]))) }
        #expect(preference.incomingVideoRules.count == 1)
    }
}
