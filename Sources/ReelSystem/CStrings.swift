import Glibc

/// Calls `body` with a NULL-terminated C array of copies of the strings, the
/// shape of argv, envp and mpv's commands; the copies live until it returns.
public func withCStrings<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return copies.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
