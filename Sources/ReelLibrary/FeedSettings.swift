import ReelCore
import ReelSQLite

/// Feeds and their settings for their episodes (`reel feed ls`, `reel feed set`).
extension Library {
    /// Every feed that has episodes in the library or settings, by name.
    public func feeds() throws -> [FeedSummary] {
        try db.query("""
            SELECT f.feed, (SELECT count(*) FROM items WHERE items.feed = f.feed), s.rate, s.skip_intro_us,
                   s.skip_outro_us, s.voice_boost, s.trim
            FROM (SELECT DISTINCT feed FROM items WHERE feed IS NOT NULL UNION SELECT feed FROM feed_settings) f
            LEFT JOIN feed_settings s ON s.feed = f.feed ORDER BY f.feed
            """).map { row in
            FeedSummary(feed: row[0].text ?? "", episodes: Int(row[1].int ?? 0), settings: Self.settings(row[2...]))
        }
    }

    /// The feed a user names: exactly as synced, else the one feed whose name holds the words
    /// (case ignored). Throws a message that lists the candidates when there are several.
    public func feed(named name: String) throws -> String {
        guard !name.trimmed().isEmpty else { throw SessionError(.invalidArgument, "a feed is named by its URL or words of it") }
        let known = try feeds().map(\.feed)
        if known.contains(name) { return name }
        let matches = known.filter { $0.lowercased().contains(name.lowercased()) }
        guard matches.count == 1 else {
            throw SessionError(matches.isEmpty ? .noSuchItem : .invalidArgument, matches.isEmpty
                ? "no feed \(name); reel feed ls lists them"
                : "\(name) names \(matches.count) feeds: \(matches.prefix(5).joined(separator: ", "))")
        }
        return matches[0]
    }

    public func setSettings(_ settings: EpisodeSettings, forFeed feed: String) throws {
        try db.query("""
            INSERT OR REPLACE INTO feed_settings (feed, rate, skip_intro_us, skip_outro_us, voice_boost, trim)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.text(feed), settings.rate.map(SQLValue.real) ?? .null, .int(settings.skipIntro),
                  .int(settings.skipOutro), .int(settings.voiceBoost ? 1 : 0), .int(settings.trimSilence ? 1 : 0)])
    }

    /// The settings of every item whose feed has some, by item id.
    public func episodeSettings() throws -> [Int64: EpisodeSettings] {
        var result: [Int64: EpisodeSettings] = [:]
        for row in try db.query("""
            SELECT items.id, s.rate, s.skip_intro_us, s.skip_outro_us, s.voice_boost, s.trim
            FROM items JOIN feed_settings s ON s.feed = items.feed
            """) {
            if let id = row[0].int { result[id] = Self.settings(row[1...]) }
        }
        return result
    }

    private static func settings(_ row: ArraySlice<SQLValue>) -> EpisodeSettings {
        let i = row.startIndex
        return EpisodeSettings(rate: row[i].real, skipIntro: row[i + 1].int ?? 0, skipOutro: row[i + 2].int ?? 0,
                               voiceBoost: row[i + 3].int == 1, trimSilence: row[i + 4].int == 1)
    }
}
