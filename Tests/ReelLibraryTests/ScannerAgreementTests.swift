import Foundation
import ReelCore
import ReelHarness
import ReelScan
import ReelSystem
import XCTest
@testable import ReelLibrary

/// reel-scan (libavformat in one process) against ffprobe, which the library read files with
/// before: the same tags, duration, format and chapters, file by file, in every container
/// the library meets. And the pool's own promises, with scanners that crash or hang.
final class ScannerAgreementTests: TempDirTestCase {
    static let chapters = """
        ;FFMETADATA1
        title=Agreement
        artist=The Scanners
        album=Differential
        album_artist=Various
        genre=Spoken
        date=2024
        track=3/9
        disc=2
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=700
        title=Opening
        [CHAPTER]
        TIMEBASE=1/1000
        START=700
        END=1500
        title=Middle part
        [CHAPTER]
        TIMEBASE=1/1000
        START=1500
        END=2000
        title=End
        """

    /// Two seconds of a tone in each container, tagged (and with chapters where it holds them).
    func makeFiles() throws -> [String] {
        let meta = dir.appendingPathComponent("meta.txt")
        try Self.chapters.write(to: meta, atomically: true, encoding: .utf8)
        let formats: [(String, [String])] = [
            ("mp3", ["-c:a", "libmp3lame", "-b:a", "64k", "-id3v2_version", "3"]),
            ("m4b", ["-c:a", "aac", "-b:a", "64k", "-f", "mp4"]),
            ("m4a", ["-c:a", "aac", "-b:a", "64k"]),
            ("ogg", ["-c:a", "libvorbis", "-q:a", "2"]),
            ("opus", ["-c:a", "libopus", "-b:a", "32k"]),
            ("flac", ["-c:a", "flac"]),
            ("wav", ["-c:a", "pcm_s16le"]),
            ("mka", ["-c:a", "flac"]),
            ("wv", ["-c:a", "wavpack"]),
        ]
        return try formats.map { ext, options in
            let file = dir.appendingPathComponent("agreement.\(ext)").path
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=500:duration=2", "-i", meta.path, "-map_metadata", "1",
                              "-map_chapters", "1", "-ar", "48000"] + options + [file])
            return file
        }
    }

    func scanned(_ paths: [String], _ settings: ScannerPool.Settings? = nil) throws -> [String: ScannedFile] {
        let executable = try XCTUnwrap(ScannerPool.defaultExecutable(), "reel-scan is built beside the tests")
        let pool = try ScannerPool(settings ?? ScannerPool.Settings(executable: executable))
        var out: [String: ScannedFile] = [:]
        pool.scan(paths) { out[$0.path] = $0; return true }
        return out
    }

    func testEveryContainerReadsAsFFprobeReadsIt() throws {
        let files = try makeFiles()
        let results = try scanned(files)
        for file in files {
            let ext = Paths.fileExtension(file)
            let old = try Probe.file(file)
            guard case .media(let new, _)? = results[file]?.outcome else {
                XCTFail(".\(ext): \(String(describing: results[file]?.outcome))")
                continue
            }
            XCTAssertEqual(new.title, old.title, ".\(ext) title")
            XCTAssertEqual(new.artist, old.artist, ".\(ext) artist")
            XCTAssertEqual(new.album, old.album, ".\(ext) album")
            XCTAssertEqual(new.albumArtist, old.albumArtist, ".\(ext) album artist")
            XCTAssertEqual(new.genre, old.genre, ".\(ext) genre")
            XCTAssertEqual(new.date, old.date, ".\(ext) date")
            XCTAssertEqual(new.track, old.track, ".\(ext) track")
            XCTAssertEqual(new.disc, old.disc, ".\(ext) disc")
            XCTAssertEqual(new.format, old.format, ".\(ext) format")
            XCTAssertEqual(Double(new.duration ?? -1), Double(old.duration ?? -2), accuracy: 1_000, ".\(ext) duration")
            XCTAssertEqual(new.chapters.map(\.title), old.chapters.map(\.title), ".\(ext) chapters")
            for (a, b) in zip(new.chapters, old.chapters) {
                XCTAssertEqual(Double(a.start), Double(b.start), accuracy: 1_000, ".\(ext) chapter \(a.title)")
            }
        }
        XCTAssertGreaterThanOrEqual(results.values.filter { if case .media(let item, _) = $0.outcome { item.chapters.count == 3 } else { false } }.count, 5,
                                    "most containers hold the chapters")
    }

    /// A scanner written to fail: it crashes on one name and hangs on another.
    func fakeScanner() throws -> String {
        let real = try XCTUnwrap(ScannerPool.defaultExecutable())
        let script = dir.appendingPathComponent("fake-scan")
        try """
            #!/bin/sh
            # Crashes as a demuxer would on a file named crash, hangs on one named hang; else the real scanner.
            exec /usr/bin/python3 -c '
            import os, signal, struct, subprocess, sys
            real = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            while True:
                head = sys.stdin.buffer.read(4)
                if len(head) < 4: break
                path = sys.stdin.buffer.read(struct.unpack("<I", head)[0])
                if path.endswith(b"crash.ogg"): os.kill(os.getpid(), signal.SIGSEGV)
                if path.endswith(b"hang.ogg"): signal.pause()
                real.stdin.write(head + path); real.stdin.flush()
                n = real.stdout.read(4); sys.stdout.buffer.write(n + real.stdout.read(struct.unpack("<I", n)[0])); sys.stdout.flush()
            ' "\(real)"
            """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script.path
    }

    func testACrashOrAHangCostsOneFileItsReasonAndTheScanGoesOn() throws {
        let good = try makeFiles().filter { $0.hasSuffix(".ogg") || $0.hasSuffix(".flac") || $0.hasSuffix(".mp3") }
        let crash = dir.appendingPathComponent("crash.ogg").path, hang = dir.appendingPathComponent("hang.ogg").path
        try FileManager.default.copyItem(atPath: good[0], toPath: crash)
        try FileManager.default.copyItem(atPath: good[0], toPath: hang)
        var settings = ScannerPool.Settings(executable: try fakeScanner(), processes: 2)
        settings.deadline = 1_500_000
        let results = try scanned([crash] + good + [hang] + good.map { $0 }, settings)
        guard case .unreadable(let crashed)? = results[crash]?.outcome else { return XCTFail("\(String(describing: results[crash]))") }
        XCTAssertTrue(crashed.contains("crashed the scanner"), crashed)
        guard case .unreadable(let hung)? = results[hang]?.outcome else { return XCTFail("\(String(describing: results[hang]))") }
        XCTAssertTrue(hung.contains("longer than"), hung)
        for file in good {
            guard case .media? = results[file]?.outcome else { return XCTFail("\(file): \(String(describing: results[file]))") }
        }
    }
}
