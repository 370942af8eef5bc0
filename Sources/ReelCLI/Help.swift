import ReelSettings

/// `reel --help` and `reel help CMD`, made from the command table.
public enum Help {
    /// The usage: every command's forms, with what it does beside them.
    public static let usage: String = {
        var text = "usage: reel [--player NAME] COMMAND [ARGS]\n"
        for group in CommandSpec.groups {
            text += "\n\(group):\n"
            for spec in CommandSpec.all where spec.group == group {
                let specs = spec.subcommands.isEmpty || spec.name == "config" ? [spec] : spec.subcommands
                for spec in specs { text += rows(spec.synopsis, spec.summary, indent: 2) }
            }
        }
        text += "\noptions:\n"
        for option in CommandSpec.globalOptions { text += rows([option.form], option.help, indent: 2) }
        return text + "\nreel help COMMAND shows one command with examples; see reel(1).\n"
    }()

    /// The command a help topic names: `seek`, `lib add`, `rg`.
    public static func spec(for words: [String]) -> CommandSpec? {
        guard let first = words.first, let spec = CommandSpec.named(first) else { return nil }
        guard words.count > 1 else { return spec }
        guard words.count == 2, let sub = CommandSpec.named(words[1], in: spec.subcommands) else { return nil }
        return sub
    }

    /// One command's help: its forms, what it does, its subcommands and examples.
    public static func text(for words: [String]) -> String? {
        guard let spec = spec(for: words) else { return nil }
        var text = spec.synopsis.enumerated().map { ($0 == 0 ? "usage: " : "       ") + "reel " + $1 }.joined(separator: "\n")
        text += "\n\n" + spec.summary.wrapped(indent: "") + "\n"
        if !spec.aliases.isEmpty { text += "\nalso: " + spec.aliases.joined(separator: ", ") + "\n" }
        if !spec.subcommands.isEmpty, spec.name != "config" {
            text += "\ncommands:\n" + spec.subcommands.map { rows($0.synopsis, $0.summary, indent: 2) }.joined()
        }
        let examples = spec.examples + spec.subcommands.flatMap(\.examples).filter { _ in spec.name != "config" }
        if !examples.isEmpty { text += "\nexamples:\n" + examples.map { "  \($0)\n" }.joined() }
        return text
    }

    /// Forms in a column of 30, the text beside the first (or under them when a form is wider).
    static func rows(_ forms: [String], _ summary: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        let column = 32
        let lines = summary.wrapped(width: 100, indent: String(repeating: " ", count: column)).split(separator: "\n").map(String.init)
        var text = ""
        var rest = lines[...]
        for (i, form) in forms.enumerated() {
            let head = pad + form
            if i == 0, head.count < column - 1, let first = rest.popFirst() {
                text += head + first.dropFirst(head.count) + "\n"
            } else {
                text += head + "\n"
            }
        }
        return text + rest.map { $0 + "\n" }.joined()
    }
}
