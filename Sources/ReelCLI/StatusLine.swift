import Foundation
import ReelDBus
import ReelCore

/// The daemon's state as `reel status` shows it.
public struct PlayerStatus: Equatable, Sendable {
    public static func == (a: PlayerStatus, b: PlayerStatus) -> Bool {
        a.line == b.line && a.trackID == b.trackID && a.position == b.position
    }

    public var status = "Stopped"
    public var title: String?
    public var artists: [String] = []
    public var album: String?
    public var url: String?
    public var trackID: String?
    public var position: Int64 = 0
    public var length: Int64?
    public var loop = "None"
    public var shuffle = false
    public var rate = 1.0
    public var volume = 1.0
    public var lastError = ""
    public var libraryError = ""
    /// How the music folder is followed (LibraryWatch): shown when it is not simply watched.
    public var libraryWatch = ""
    /// "connecting to HOST", "buffering", or "".
    public var activity = ""
    /// Bytes cached and the length of the remote file playing; nil when it is not read through the cache.
    public var cacheFill: (present: Int64, length: Int64)?
    /// Where the daemon's other control buses listen ("mpd:/path").
    public var controlAddresses: [String] = []
    /// Where the sound goes when not to mpv's audio output ("snapcast:/path"); "" for mpv's own.
    public var audioOutput = ""
    /// The chapter heard: its number from 1 and its title.
    public var chapter: (number: Int, title: String)?
    /// The sleep timer ("timer", "end-of-chapter", "end-of-track") and the µs left; nil when off.
    public var sleep: (mode: String, left: Int64)?
    /// What trimming silence has saved: of the current entry in this play (nil: it does not trim),
    /// and over the whole library (nil: unknown).
    public var timeSaved: Int64?
    public var timeSavedInAll: Int64?

    /// "in 29:12", "at the end of the chapter, in 3:02"; nil when off.
    public static func sleepText(mode: String, left: Int64) -> String? {
        let when = left >= 0 ? "in " + ClockText.format(left) : nil
        return switch mode {
        case "timer": when
        case "end-of-chapter": ["at the end of the chapter", when].compactMap { $0 }.joined(separator: ", ")
        case "end-of-track": ["at the end of the track", when].compactMap { $0 }.joined(separator: ", ")
        default: nil
        }
    }

    public init() {}

    /// "MPD protocol on PATH and HOST:PORT; playing to snapcast:PATH", for what the daemon serves and plays to.
    public var listeners: String? {
        let mpd = controlAddresses.filter { $0.hasPrefix("mpd:") }.map { String($0.dropFirst(4)).printable }
        let parts = [mpd.isEmpty ? nil : "MPD protocol on " + mpd.joined(separator: " and "),
                     audioOutput.isEmpty ? nil : "playing to " + audioOutput.printable].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Builds the status from Player properties and the reel extension's LastError.
    public init(player: [String: DBusValue], lastError: String, libraryError: String = "", activity: String = "",
                sleep: (mode: String, left: Int64)? = nil) {
        self.sleep = sleep
        self.libraryError = libraryError
        self.activity = activity
        status = player["PlaybackStatus"]?.string ?? "Stopped"
        let metadata = player["Metadata"]?.dictionary ?? [:]
        trackID = metadata["mpris:trackid"]?.string.flatMap { $0.hasSuffix("/NoTrack") ? nil : $0 }
        title = metadata["xesam:title"]?.string
        artists = metadata["xesam:artist"]?.stringArray ?? []
        album = metadata["xesam:album"]?.string
        url = metadata["xesam:url"]?.string
        if let number = metadata["reel:chapterNumber"]?.int64, let title = metadata["reel:chapter"]?.string {
            chapter = (Int(number), title)
        }
        length = metadata["mpris:length"]?.int64
        position = player["Position"]?.int64 ?? 0
        loop = player["LoopStatus"]?.string ?? "None"
        shuffle = player["Shuffle"]?.bool ?? false
        rate = player["Rate"]?.double ?? 1
        volume = player["Volume"]?.double ?? 1
        self.lastError = lastError
    }

    /// One line: state, title, artist, position/length, and the last error if any.
    public var line: String {
        var parts = [status]
        if trackID != nil {
            var what = (title ?? url ?? "?").printable
            if !artists.isEmpty { what += " — " + artists.joined(separator: ", ").printable }
            parts.append(what)
            parts.append(ClockText.format(position) + "/" + (length.map(ClockText.format) ?? "?"))
            if let chapter { parts.append("[chapter \(chapter.number): \(chapter.title.printable)]") }
            if let sleep, let text = Self.sleepText(mode: sleep.mode, left: sleep.left) { parts.append("[sleep \(text)]") }
            if let saved = timeSaved {
                parts.append("[trimmed " + ClockText.format(saved)
                             + (timeSavedInAll.map { "; " + ClockText.format($0) + " in all" } ?? "") + "]")
            }
            if !activity.isEmpty { parts.append("[\(activity)…]") }
            if let fill = cacheFill, fill.length > 0, fill.present < fill.length {
                parts.append("[cached \(fill.present * 100 / fill.length) %]")
            }
        } else {
            parts.append("(nothing queued)")
        }
        if !lastError.isEmpty { parts.append("[error: \(lastError.printable)]") }
        if !libraryError.isEmpty { parts.append("[library: \(libraryError.printable)]") }
        if watchNeedsSaying { parts.append("[music folder: \(libraryWatch.printable)]") }
        return parts.joined(separator: "  ")
    }

    /// Watched, or turned off on purpose, is the normal case; anything else is a problem.
    var watchNeedsSaying: Bool { !libraryWatch.isEmpty && libraryWatch != "off" && !libraryWatch.hasPrefix("watching ") }

    public var json: [String: Any] {
        var object: [String: Any] = [
            "status": status, "position": position, "loop": loop, "shuffle": shuffle,
            "rate": rate, "volume": volume, "artists": artists,
        ]
        object["title"] = title
        object["album"] = album
        object["url"] = url
        object["trackid"] = trackID
        object["length"] = length
        object["timeSaved"] = timeSaved
        object["timeSavedInAll"] = timeSavedInAll
        object["sleep"] = sleep.map { ["mode": $0.mode, "left": $0.left] as [String: Any] }
        object["chapter"] = chapter.map { ["number": $0.number, "title": $0.title] as [String: Any] }
        object["lastError"] = lastError.isEmpty ? nil : lastError
        object["libraryError"] = libraryError.isEmpty ? nil : libraryError
        object["libraryWatch"] = libraryWatch.isEmpty ? nil : libraryWatch
        object["activity"] = activity.isEmpty ? nil : activity
        if let fill = cacheFill { object["cached"] = ["present": fill.present, "length": fill.length] }
        if !controlAddresses.isEmpty { object["controlAddresses"] = controlAddresses }
        if !audioOutput.isEmpty { object["audioOutput"] = audioOutput }
        return object
    }
}

/// Serialises a JSON object on one line, keys sorted. Every control
/// character is a \u escape (JSONSerialization leaves DEL and C1 as they
/// are), so that the line is safe on a terminal and unchanged by it.
public func jsonLine(_ object: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
        return "{}"
    }
    let text = String(decoding: data, as: UTF8.self)
    guard text.unicodeScalars.contains(where: JSON.needsEscape) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if JSON.needsEscape(scalar) { out += JSON.escape(scalar) } else { out.unicodeScalars.append(scalar) }
    }
    return out
}

/// JSON pieces written by hand where JSONSerialization per row is too slow
/// (100,000 queue entries).
enum JSON {
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || needsEscape(scalar): out += escape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// DEL, C1 controls and the line and paragraph separators, which JSON allows raw and terminals and
    /// JavaScript do not.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u" + String(scalar.value, radix: 16).zeroPadded(to: 4)
    }
}
