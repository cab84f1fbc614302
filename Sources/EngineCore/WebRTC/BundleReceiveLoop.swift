import SessionCore

/// The receive loop of a transport layered on the one port of a bundle (RFC 7983: STUN, DTLS and
/// (S)RTP share it, told apart by their first byte): runs the layer's timers, reads from the
/// transport below, and hands each datagram to `demultiplex`, which either keeps it for the layer
/// (returns nil: read on) or passes it up: its length (the layer may unwrap it in place, as a TURN
/// relay does) and the source it names. Waits up to
/// `timeoutMilliseconds` for the first datagram only; after it, only what is already queued.
enum BundleReceiveLoop {
    static func receive(from inner: any DatagramTransport, into buffer: UnsafeMutableRawBufferPointer,
                        timeoutMilliseconds: Int32, service: () -> Void,
                        demultiplex: (UnsafeMutableRawBufferPointer, NetworkEndpoint) -> (count: Int, from: NetworkEndpoint)?)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        var timeout = timeoutMilliseconds
        while true {
            service()
            guard let received = try inner.receive(into: buffer, timeoutMilliseconds: timeout) else { return nil }
            timeout = 0
            if let passed = demultiplex(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<received.count]), received.from) {
                return passed
            }
        }
    }
}
