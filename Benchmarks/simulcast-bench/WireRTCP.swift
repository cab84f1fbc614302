extension WireBenchmark {
    /// (e) RTCP compound build/parse, per compound packet: e.g. SR + SDES(CNAME) + REMB built into a
    /// reused buffer, and a receiver-side RR + NACK + PLI + transport-cc feedback compound parsed.
    ///
    /// TODO(rtcp branch): the RTCP types are being written on the `rtcp` branch and are not in this
    /// tree. When it merges, fill this in with two `WireOperation`s measured by `measureWire`
    /// (named `rtcp_compound_build` and `rtcp_compound_parse`, unit `packet`, `iterations` and
    /// `runs` from `self`) and return them. Returning nil reports RTCP as "not measured".
    func measureRTCP() throws -> [WireResult]? {
        nil
    }
}
