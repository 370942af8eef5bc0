import Glibc
import ReelSystem
import XCTest

final class SpawnTests: XCTestCase {
    private func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 256)
        while case let n = read(fd, &buffer, buffer.count), n > 0 { bytes += buffer[..<n] }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testOutputGoesWhereAskedAndTheGroupIsItsOwn() throws {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&out), 0)
        XCTAssertEqual(pipe(&err), 0)
        let pid = try Spawn.start("/bin/sh", ["-c", "echo $GREETING; echo oops >&2; exit 3"], environment: ["GREETING": "hi"],
                                  stdout: out[1], stderr: err[1], closing: out + err, newProcessGroup: true)
        close(out[1])
        close(err[1])
        XCTAssertEqual(getpgid(pid), pid, "a process group of its own")
        XCTAssertEqual(readAll(out[0]), "hi\n")
        XCTAssertEqual(readAll(err[0]), "oops\n")
        var status: Int32 = 0
        XCTAssertEqual(waitpid(pid, &status, 0), pid)
        XCTAssertEqual((status >> 8) & 0xFF, 3)
        close(out[0])
        close(err[0])
    }

    func testAMissingProgramIsAnErrorInWords() {
        XCTAssertThrowsError(try Spawn.start("/nonexistent/program", [])) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/program"), "\(error)")
        }
    }
}
