import CLinux
import CMediaScan
import Glibc
import ReelScan
import ReelSystem

// reel-scan: reeld's scanner. It reads paths on standard input and writes what it finds in
// each file on standard output, one frame each (ScanWire), until its input ends. A file that
// crashes or hangs a demuxer takes this process down, never reeld, which starts another.

// It ends with the daemon even when a demuxer holds it (and so never sees its input end).
_ = reel_die_with_parent()
signal(SIGPIPE, SIG_IGN)
// One allocation of more than this is a lie about a size (no tag or picture is that large).
reel_media_init(256 << 20)

var input = [UInt8]()
var start = 0
var chunk = [UInt8](repeating: 0, count: 64 * 1024)

/// Writes all of `bytes` to standard output; false once reeld is gone.
func send(_ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + done, bytes.count - done) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

reading: while true {
    do {
        while let (payload, next) = try ScanWire.nextFrame(in: input, from: start) {
            start = next
            // Names reach the scanner checked as UTF-8; a name that is not is read as it is still.
            let path = String(decoding: payload, as: UTF8.self)
            guard send(ScanWire.frame(ScanWire.encode(MediaFile.scan(path)))) else { break reading }
        }
    } catch {
        writeStandardError("reel-scan: \(error)")
        exit(2)
    }
    if start > 0 {
        input.removeFirst(start)
        start = 0
    }
    let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
    if n < 0, errno == EINTR { continue }
    guard n > 0 else { break }
    input += chunk[0..<n]
}
exit(0)
