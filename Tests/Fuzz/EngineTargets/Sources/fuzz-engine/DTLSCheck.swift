import DTLS
import RTPWire

/// DTLSAssociation on datagrams a stranger (or a broken peer) could send: a fresh server and a
/// client that has sent its ClientHello, each fed the input's records (`[length, bytes…]`).
///
/// Invariants beyond no trap and no leak: neither side ever reaches `.connected` (no handshake
/// can complete without the peer certificate the fixed fingerprint names), and what they send in
/// answer stays within 8 datagrams of at most the MTU per record.
enum DTLSCheck {
    static let certificate = try! DTLSCertificate()
    static let expectedPeer = try! DTLSCertificate()

    static func run(_ bytes: [UInt8]) -> String? {
        guard let server = try? DTLSAssociation(role: .server, certificate: certificate, remoteFingerprint: expectedPeer.fingerprint),
              let client = try? DTLSAssociation(role: .client, certificate: certificate, remoteFingerprint: expectedPeer.fingerprint)
        else { return "associations not created" }
        _ = client.start()
        var cursor = ByteCursor(bytes[...])
        var index = 0
        while let length = cursor.byte() {
            let datagram = cursor.bytes(Int(length) * 4)
            let side = index % 2 == 0 ? server : client
            index += 1
            let sent = side.handle(datagram[...]) + side.poll()
            guard sent.count <= 8, sent.allSatisfy({ $0.count <= side.mtu }) else {
                return "answered one datagram with \(sent.count) (largest \(sent.map(\.count).max() ?? 0) bytes)"
            }
            if case .connected = side.state { return "connected to a peer without the expected certificate" }
        }
        return nil
    }
}
