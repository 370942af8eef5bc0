import Foundation

/// What an X display shows, as a person would read it: its pixels (ImageMagick's `import`)
/// and the words on it with where they are (tesseract's OCR). For checks of GUI programs
/// that publish nothing else a test could read.
public struct Screenshot {
    /// A word tesseract read, and its box in screen pixels.
    public struct Word: Equatable, Sendable {
        public var text: String
        public var x: Int, y: Int, width: Int, height: Int
    }

    public let width: Int
    public let height: Int
    private let rgb: [UInt8]
    /// Where the picture was saved (PNG), to look at when a check fails.
    public let file: URL

    /// Takes the whole screen of `display` (":N"), saved as `file`.
    public init(of display: String, savedAs file: URL) throws {
        let grab = try Captured.run("/usr/bin/import", ["-display", display, "-window", "root", file.path])
        guard grab.status == 0 else { throw HarnessError("import failed (is imagemagick installed?): \(grab.err)") }
        // The pixels as a binary PPM (P6): a short text header, then RGB bytes.
        let ppm = file.deletingPathExtension().appendingPathExtension("ppm")
        defer { try? FileManager.default.removeItem(at: ppm) }
        let convert = try Captured.run("/usr/bin/convert", [file.path, "-depth", "8", ppm.path])
        guard convert.status == 0 else { throw HarnessError("convert failed: \(convert.err)") }
        let data = [UInt8](try Data(contentsOf: ppm))
        var fields: [Int] = [], index = 2   // past "P6"
        while fields.count < 3 {
            while index < data.count, data[index] == UInt8(ascii: " ") || data[index] == UInt8(ascii: "\n") { index += 1 }
            var value = 0
            while index < data.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(data[index]) {
                value = value * 10 + Int(data[index] - UInt8(ascii: "0"))
                index += 1
            }
            fields.append(value)
        }
        index += 1   // the one whitespace after maxval
        guard data.starts(with: Array("P6".utf8)), fields[2] == 255, data.count - index >= fields[0] * fields[1] * 3 else {
            throw HarnessError("not an 8-bit PPM: \(file.path)")
        }
        width = fields[0]
        height = fields[1]
        rgb = Array(data[index ..< index + width * height * 3])
        self.file = file
    }

    /// The colour at (x, y).
    public func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (rgb[i], rgb[i + 1], rgb[i + 2])
    }

    /// The words on screen, read at four times the size in black and white
    /// (tesseract misses 9-point UI text at its real size, and grey text on
    /// white without the threshold), with their boxes in screen pixels.
    public func words() throws -> [Word] {
        let scaled = file.deletingPathExtension().appendingPathExtension("x4.png")
        defer { try? FileManager.default.removeItem(at: scaled) }
        let resize = try Captured.run("/usr/bin/convert", [file.path, "-resize", "400%", "-colorspace", "Gray", "-threshold", "80%", scaled.path])
        guard resize.status == 0 else { throw HarnessError("convert failed: \(resize.err)") }
        let ocr = try Captured.run("/usr/bin/tesseract", [scaled.path, "-", "--psm", "11", "tsv"])
        guard ocr.status == 0 else { throw HarnessError("tesseract failed (is tesseract-ocr installed?): \(ocr.err)") }
        // TSV: level page block par line word left top width height conf text
        return ocr.out.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 12, let left = Int(f[6]), let top = Int(f[7]), let w = Int(f[8]), let h = Int(f[9]) else { return nil }
            let text = f[11].trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : Word(text: text, x: left / 4, y: top / 4, width: w / 4, height: h / 4)
        }
    }
}
