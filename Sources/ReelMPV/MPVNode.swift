import CMPV

/// Reading mpv_node trees into Swift values.
enum MPVNode {
    static func map(_ node: mpv_node) -> [String: mpv_node] {
        guard node.format == MPV_FORMAT_NODE_MAP, let list = node.u.list?.pointee else { return [:] }
        var result: [String: mpv_node] = [:]
        for i in 0..<Int(list.num) {
            guard let key = list.keys?[i] else { continue }
            result[String(cString: key)] = list.values[i]
        }
        return result
    }

    static func array(_ node: mpv_node) -> [mpv_node] {
        guard node.format == MPV_FORMAT_NODE_ARRAY, let list = node.u.list?.pointee else { return [] }
        return (0..<Int(list.num)).map { list.values[$0] }
    }

    static func flag(_ node: mpv_node) -> Bool {
        node.format == MPV_FORMAT_FLAG && node.u.flag != 0
    }

    static func string(_ node: mpv_node) -> String? {
        guard node.format == MPV_FORMAT_STRING, let s = node.u.string else { return nil }
        return String(cString: s)
    }

    static func double(_ node: mpv_node) -> Double? {
        node.format == MPV_FORMAT_DOUBLE ? node.u.double_ : nil
    }

    static func int64(_ node: mpv_node) -> Int64? {
        node.format == MPV_FORMAT_INT64 ? node.u.int64 : nil
    }
}
