import Testing
@testable import EngineCore

/// `getifaddrs` as ICE sees it: loopback addresses are reported and marked, and `usable` leaves
/// them (and link-local ones) out unless asked. Reads the interfaces only; sends nothing.
@Suite struct NetworkInterfacesTests {
    @Test func loopbackIsListedMarkedAndSkippedUnlessAsked() throws {
        let all = try NetworkInterfaces.all()
        let loopback = try #require(all.first { $0.ip == .v4(0x7F00_0001) })
        #expect(loopback.isLoopback && !loopback.isLinkLocal && loopback.description.hasSuffix("127.0.0.1"))
        #expect(try NetworkInterfaces.usable().allSatisfy { !$0.isLoopback && !$0.isLinkLocal })
        #expect(try NetworkInterfaces.usable(includingLoopback: true).contains(loopback))
        if let v6 = all.first(where: { if case .v6 = $0.ip { true } else { false } }) {
            #expect(v6.description.contains(":"))
        }
    }
}
