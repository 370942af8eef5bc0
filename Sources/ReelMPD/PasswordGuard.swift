import ReelCore

/// Limits password guessing over TCP beyond one connection's three tries: by source address and
/// overall, each with a lockout that doubles while the guessing goes on. Pure: the server tells it
/// the wrong passwords and asks it whom to let in. The Unix socket needs no password and is
/// never asked about, so its owner is never locked out.
struct PasswordGuard {
    /// Wrong passwords from one address within `window` that lock it out.
    static let perAddress = 5
    /// Wrong passwords from all addresses within `window` that lock out every password login.
    static let overall = 20
    static let window: MediaTime = 60_000_000
    /// The first lockout; each next one while guessing goes on doubles, up to `longestLockout`.
    static let firstLockout: MediaTime = 60_000_000
    static let longestLockout: MediaTime = 3_600_000_000
    /// Addresses followed at most (the oldest are forgotten first), so that a spray from many
    /// addresses costs bounded memory; the overall limit holds them all the same.
    static let followed = 4_096

    private struct Record {
        var failures: [MonotonicTime] = []
        var lockedUntil: MonotonicTime?
        var lockouts = 0
        var last: MonotonicTime = 0
    }
    private var byAddress: [String: Record] = [:]
    private var everyone = Record()

    /// A connection from `address` may try a password now: nil, or why not (for the log).
    func refusal(for address: String, now: MonotonicTime) -> String? {
        if let until = byAddress[address]?.lockedUntil, now < until { return "\(address) is locked out" }
        if let until = everyone.lockedUntil, now < until { return "password logins over TCP are locked out" }
        return nil
    }

    /// A wrong password from `address`: returns a line for the log when it begins a lockout.
    mutating func failed(from address: String, now: MonotonicTime) -> String? {
        if byAddress[address] == nil, byAddress.count >= Self.followed,
           let oldest = byAddress.min(by: { $0.value.last < $1.value.last })?.key {
            byAddress[oldest] = nil
        }
        var record = byAddress[address] ?? Record()
        let local = Self.note(&record, limit: Self.perAddress, now: now)
        byAddress[address] = record
        let all = Self.note(&everyone, limit: Self.overall, now: now)
        if let all {
            return "\(Self.overall) wrong passwords within a minute from all addresses (the last from \(address)): "
                + "password logins over TCP refused for \(ClockText.format(all)); the Unix socket stays open"
        }
        if let local {
            return "\(Self.perAddress) wrong passwords within a minute from \(address): its connections refused for \(ClockText.format(local))"
        }
        return nil
    }

    /// Counts a failure; past the limit, starts a lockout and returns its length.
    private static func note(_ record: inout Record, limit: Int, now: MonotonicTime) -> MediaTime? {
        record.last = now
        record.failures.removeAll { now - $0 >= window }
        record.failures.append(now)
        // A lockout long over with no guessing since forgives the ones before it.
        if let until = record.lockedUntil, now - until >= longestLockout { record.lockouts = 0 }
        guard record.failures.count >= limit, record.lockedUntil.map({ now >= $0 }) ?? true else { return nil }
        let length = min(firstLockout << min(record.lockouts, 12), longestLockout)
        record.lockouts += 1
        record.lockedUntil = now + length
        record.failures.removeAll()
        return length
    }
}
