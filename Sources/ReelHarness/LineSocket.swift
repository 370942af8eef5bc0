import Foundation

/// A client socket read line by line (Unix path, or 127.0.0.1:PORT): what
/// the MPD and snapserver JSON-RPC test clients share.
public class LineSocket {
    public let fd: Int32
    /// What was received and not read yet starts at `start`: lines are taken by moving it, not by
    /// removing them, which moved the rest of a 64 KiB chunk for every line (a 1.4 MB `playlistinfo`
    /// took 70 ms to read so, several times what either server took to send it).
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to a Unix socket path, or to 127.0.0.1:PORT.
    public init(path: String? = nil, port: UInt16? = nil) throws {
        if let port {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard ok == 0 else { close(fd); throw HarnessError("cannot connect to port \(port): \(String(cString: strerror(errno)))") }
        } else {
            let path = path ?? ""
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
                raw[min(path.utf8.count, raw.count - 1)] = 0
            }
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard ok == 0 else { close(fd); throw HarnessError("cannot connect to \(path): \(String(cString: strerror(errno)))") }
        }
    }

    private var open = true

    deinit { hangUp() }

    /// Closes the connection without a word, as a crashed client would.
    public func hangUp() {
        if open { close(fd) }
        open = false
    }

    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// One line, without its newline; nil on timeout or when the server hung up.
    public func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                if start == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                }
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var item = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&item, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            if start > 0 {
                buffer.removeFirst(start)   // once a chunk: a partial line is all that is left before it
                start = 0
            }
            buffer += chunk[..<n]
        }
    }


    /// Whether something the server sent waits to be read.
    public var hasInput: Bool {
        var item = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return buffer[start...].contains(UInt8(ascii: "\n")) || poll(&item, 1, 0) > 0
    }

    /// Whether the server closed the connection (within `timeout`).
    public func isClosed(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var item = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&item, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return true }
        }
        return false
    }
}
