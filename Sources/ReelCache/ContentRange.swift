/// `Content-Range: bytes FIRST-LAST/TOTAL` (TOTAL may be `*`).
struct ContentRange {
    var first: Int64
    var last: Int64
    var total: Int64?

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/")
        let ends = parts.first?.split(separator: "-") ?? []
        guard parts.count == 2, ends.count == 2, let first = Int64(ends[0].trimmed()),
              let last = Int64(ends[1].trimmed()), first <= last else { return nil }
        let total = Int64(parts[1].trimmed())
        guard parts[1] == "*" || (total.map { $0 > last } ?? false) else { return nil }
        self.first = first
        self.last = last
        self.total = total
    }
}
