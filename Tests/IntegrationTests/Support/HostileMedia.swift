import Foundation
import ReelHarness

/// Files made to trouble a demuxer: lying headers, zero-length chapters, huge pictures, names
/// no listing expects; and the fuzzed files that once crashed or hung the scanner.
enum HostileMedia {
    /// A WAV whose header claims `hours` of 8 kHz 8-bit mono, in `bytes` bytes.
    static func lyingWAV(hours: Int, bytes: Int) -> Data {
        let rate: UInt32 = 8_000
        let claimed = UInt32(hours * 3_600) * rate
        var data = Data("RIFF".utf8)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        u32(claimed &+ 36)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(1); u32(rate); u32(rate); u16(1); u16(8)
        data.append(contentsOf: Array("data".utf8))
        u32(claimed)
        data.append(Data(repeating: 0x80, count: bytes - data.count))
        return data
    }

    /// An m4a of one second with `count` chapters, every one of them starting and ending at 0.
    static func zeroLengthChapters(_ count: Int, at url: URL) throws {
        let meta = url.deletingLastPathComponent().appendingPathComponent("chapters-\(count).txt")
        var text = ";FFMETADATA1\n"
        for i in 0..<count { text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=0\ntitle=Empty \(i)\n" }
        try text.write(to: meta, atomically: true, encoding: .utf8)
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-i", meta.path, "-map_metadata", "1", "-map_chapters", "1",
                          "-c:a", "aac", "-b:a", "48k", url.path])
        try FileManager.default.removeItem(at: meta)
    }

    /// `source` (an mp3) with an embedded picture of `megabytes` MB, written by mutagen.
    static func bigPicture(megabytes: Int, into source: URL, at url: URL) throws {
        try FileManager.default.copyItem(at: source, to: url)
        let script = """
            import sys
            from mutagen.id3 import ID3, APIC
            tags = ID3(sys.argv[1])
            tags.add(APIC(encoding=3, mime="image/jpeg", type=3, desc="cover", data=b"\\xff\\xd8\\xff" + b"\\0" * (\(megabytes) << 20)))
            tags.save(v2_version=3)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, url.path]
        try python.run()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { throw TestFailure("mutagen could not write the picture") }
    }

    /// Writes `data` under a name of raw bytes (not UTF-8, say).
    static func writeRawName(_ name: [UInt8], in folder: URL, _ data: Data) throws {
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                                                     O_CREAT | O_WRONLY | O_TRUNC, 0o644) }
        guard fd >= 0 else { throw TestFailure("cannot make a file of a raw name") }
        defer { close(fd) }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The files `scripts/fuzz-scanner` found that crashed or hung reel-scan, kept as fixtures.
    static func fixtures() -> [URL] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/scanner").standardized
        return ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.lastPathComponent != "README.md" }.sorted { $0.path < $1.path }
    }
}
