import Glibc

extension NetworkError {
    /// Whether the failure says the local network path is down rather than that the destination
    /// or the packet is wrong: no route (`ENETUNREACH`, `EHOSTUNREACH`: the link went down with
    /// its route), the interface down (`ENETDOWN`), or the bound address gone (`EADDRNOTAVAIL`).
    /// What a reconnecting room rides out (issue 29 item 3) instead of failing.
    public var isPathDown: Bool {
        guard case let .unreachable(_, code) = self else { return false }
        return code == ENETUNREACH || code == EHOSTUNREACH || code == ENETDOWN || code == EADDRNOTAVAIL
    }
}
