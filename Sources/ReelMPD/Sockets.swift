import Glibc
import ReelSystem

/// The few socket calls the MPD listeners need, with errors as text.
enum Sockets {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
        init(message: String) { description = message }
    }

    /// A listening Unix socket at `path`, mode 0600. A stale socket file
    /// (nobody accepts on it) is replaced; a live one is an error.
    static func listenUnix(_ path: String) throws(Failure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw Failure(message: "the socket path \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        if access(path, F_OK) == 0 {
            if isAccepting(&address) { throw Failure(message: "another process already listens on \(path)") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        // Created 0600 from the start: no moment where another user could connect.
        let mask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(mask)
        guard bound == 0 else { let e = Failure("cannot bind \(path)"); close(fd); throw e }
        guard listen(fd, 64) == 0 else { let e = Failure("cannot listen on \(path)"); close(fd); throw e }
        return fd
    }

    private static func isAccepting(_ address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    /// A listening TCP socket on the address (its host resolved by getaddrinfo).
    static func listenTCP(_ listen: ListenAddress) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(listen.host, String(listen.port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(message: "cannot resolve \(listen.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let e = Failure("cannot listen on \(listen)"); close(fd); throw e
        }
        guard Glibc.listen(fd, 64) == 0 else { let e = Failure("cannot listen on \(listen)"); close(fd); throw e }
        return fd
    }

    /// The port a TCP socket is bound to (for port 0: the one the kernel chose).
    static func boundPort(_ fd: Int32) -> UInt16? {
        guard var storage = address(fd, getsockname) else { return nil }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> UInt16 in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// A socket's own address or its peer's, as `getsockname` or `getpeername` gives it.
    private static func address(_ fd: Int32, _ get: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32)
        -> sockaddr_storage? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { get(fd, $0, &length) }
        } == 0
        return ok ? storage : nil
    }

    /// The address a TCP connection comes from, as text (its port left out); nil when unknown.
    static func peerAddress(_ fd: Int32) -> String? {
        guard var storage = address(fd, getpeername) else { return nil }
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
                }
            }
            guard family == AF_INET else { return nil }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                withUnsafePointer(to: address.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
            }
        }
        guard written != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
