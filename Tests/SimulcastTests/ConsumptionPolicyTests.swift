import Testing
@testable import Simulcast

@Suite struct ConsumptionPolicyTests {
    @Test func autoConsumeForwardsEverything() {
        let policy = ConsumptionPolicy(autoConsume: true)
        #expect(policy.isConsuming(.microphone, of: "alice"))
        #expect(policy.isConsuming(.camera, of: "alice"))
    }

    @Test func onDemandForwardsNothingUntilConsumed() {
        let policy = ConsumptionPolicy(autoConsume: false)
        #expect(!policy.isConsuming(.microphone, of: "alice"))
        #expect(!policy.isConsuming(.camera, of: "alice"))
    }

    @Test func consumingTheMicForwardsOnlyTheMic() {
        var policy = ConsumptionPolicy(autoConsume: false)
        policy.consume("alice", [.microphone])
        #expect(policy.isConsuming(.microphone, of: "alice"))
        #expect(!policy.isConsuming(.camera, of: "alice"))
        #expect(!policy.isConsuming(.microphone, of: "bob"))
    }

    @Test func consumingMicAndWebcamForwardsBoth() {
        var policy = ConsumptionPolicy(autoConsume: false)
        policy.consume("alice")
        #expect(policy.isConsuming(.microphone, of: "alice"))
        #expect(policy.isConsuming(.camera, of: "alice"))
    }

    @Test func stopConsumingStopsForwarding() {
        var policy = ConsumptionPolicy(autoConsume: false)
        policy.consume("alice")
        policy.stopConsuming("alice", [.camera])
        #expect(policy.isConsuming(.microphone, of: "alice"))
        #expect(!policy.isConsuming(.camera, of: "alice"))
    }

    @Test func stopConsumingIsAnOptOutUnderAutoConsume() {
        var policy = ConsumptionPolicy(autoConsume: true)
        policy.stopConsuming("alice", [.camera])
        #expect(!policy.isConsuming(.camera, of: "alice"))
        policy.consume("alice", [.camera])
        #expect(policy.isConsuming(.camera, of: "alice"))
    }

    @Test func aParticipantWhoLeavesStartsOverWhenRejoining() {
        var policy = ConsumptionPolicy(autoConsume: false)
        policy.consume("alice")
        policy.participantLeft("alice")
        #expect(!policy.isConsuming(.microphone, of: "alice"))
    }
}

@Suite struct ConsumptionRegistryTests {
    @Test func stopConsumingAffectsOnlyThatSubscriber() {
        var registry = ConsumptionRegistry()
        registry.addSubscriber("s1", autoConsume: false)
        registry.addSubscriber("s2", autoConsume: false)
        registry.addSubscriber("auto", autoConsume: true)
        registry.consume(subscriber: "s1", participant: "alice")
        registry.consume(subscriber: "s2", participant: "alice")
        #expect(registry.subscribers(receiving: .microphone, from: "alice") == ["auto", "s1", "s2"])
        registry.stopConsuming(subscriber: "s1", participant: "alice")
        #expect(registry.subscribers(receiving: .microphone, from: "alice") == ["auto", "s2"])
        #expect(registry.subscribers(receiving: .camera, from: "alice") == ["auto", "s2"])
    }

    @Test func onDemandSubscriberReceivesNothingOfAnUnconsumedParticipant() {
        var registry = ConsumptionRegistry()
        registry.addSubscriber("s1", autoConsume: false)
        registry.consume(subscriber: "s1", participant: "alice", [.camera])
        #expect(registry.shouldForward(.camera, from: "alice", to: "s1"))
        #expect(!registry.shouldForward(.microphone, from: "alice", to: "s1"))
        #expect(!registry.shouldForward(.camera, from: "bob", to: "s1"))
        #expect(!registry.shouldForward(.microphone, from: "bob", to: "s1"))
    }

    @Test func unknownSubscribersReceiveNothing() {
        var registry = ConsumptionRegistry()
        let accepted = registry.consume(subscriber: "ghost", participant: "alice")
        #expect(!accepted)
        #expect(!registry.shouldForward(.microphone, from: "alice", to: "ghost"))
    }

    @Test func nobodyIsForwardedTheirOwnMedia() {
        var registry = ConsumptionRegistry()
        registry.addSubscriber("alice", autoConsume: true)
        #expect(!registry.shouldForward(.camera, from: "alice", to: "alice"))
    }
}
