import CommandLineSupport
import MediaEngine
import Testing
@testable import SimulcastCLI

/// `simulcast demo [--participants] --protocol udp-over-tcp|udp|tcp` (docs/joining-a-room.md `preferredProtocol`, issue 18):
/// udp-over-tcp by default, anything else a readable error. Parsing only; nothing is started.
@Suite struct DemoProtocolArgumentTests {
    @Test func eachSpellingChoosesItsPreference() throws {
        #expect(try DemoCommand.parse([]).options.preferredProtocol == .udpOverTCP)
        #expect(try DemoCommand.parse(["--protocol", "udp-over-tcp"]).options.preferredProtocol == .udpOverTCP)
        #expect(try DemoCommand.parse(["--protocol", "udp"]).options.preferredProtocol == .udpOnly)
        #expect(try DemoCommand.parse(["--protocol", "tcp"]).options.preferredProtocol == .tcpOnly)
        #expect(try RoomDemo.parse(["--participants", "--protocol", "tcp"]).options.preferredProtocol == .tcpOnly)
        #expect(try RoomDemo.parse(["--participants"]).options.preferredProtocol == .udpOverTCP)
    }

    @Test(arguments: ["quic", "TCP", "", "udp_over_tcp"])
    func otherValuesAreReadableErrors(value: String) {
        let error = #expect(throws: CommandLineArguments.ParseError.self) { _ = try DemoCommand.parse(["--protocol", value]) }
        #expect(error?.description == "--protocol \(value): expected udp-over-tcp, udp or tcp")
        #expect(throws: CommandLineArguments.ParseError.self) { _ = try DemoCommand.parse(["--protocol"]) }
        #expect(throws: CommandLineArguments.ParseError.self) { _ = try RoomDemo.parse(["--participants", "--protocol", value]) }
    }
}
