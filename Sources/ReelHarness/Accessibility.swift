import Foundation

/// What a desktop program shows, read as screen readers read it: through
/// AT-SPI (pyatspi, Debian's python3-pyatspi) on the accessibility bus of a
/// session bus. Qt and GTK programs publish their widgets there: a label's
/// name is its text, a slider has a value, a button can be pressed.
public enum Accessibility {
    public struct Node: Decodable, Equatable, Sendable {
        public var role: String
        public var name: String
        public var value: Double?
    }

    private static let script = """
        import json, sys, pyatspi
        app_name, press = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
        out = []
        def walk(node):
            entry = {"role": node.getRoleName(), "name": node.name or ""}
            try:
                entry["value"] = node.queryValue().currentValue
            except Exception:
                pass
            if press is not None and entry["role"] == "push button" and entry["name"] == press:
                node.queryAction().doAction(0)
                sys.exit(0)
            out.append(entry)
            for i in range(node.childCount):
                child = node.getChildAtIndex(i)
                if child is not None:
                    walk(child)
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.name == app_name:
                walk(app)
                break
        if press is not None:
            sys.exit(3)
        print(json.dumps(out))
        """

    /// Starts the accessibility bus of `sessionBus` (before the programs, which look for it as they start).
    public static func start(sessionBus: String) throws {
        _ = try run([""], sessionBus: sessionBus)
    }

    /// Every node of the program named `app`, in the order of its tree; empty while it is not there.
    public static func nodes(of app: String, sessionBus: String) throws -> [Node] {
        try JSONDecoder().decode([Node].self, from: Data(try run([app], sessionBus: sessionBus).utf8))
    }

    /// Presses the button named `name` of `app`, as a screen reader's user would.
    public static func press(_ name: String, in app: String, sessionBus: String) throws {
        _ = try run([app, name], sessionBus: sessionBus)
    }

    private static func run(_ args: [String], sessionBus: String) throws -> String {
        let run = try Captured.run("/usr/bin/python3", ["-c", script] + args, environment: ["DBUS_SESSION_BUS_ADDRESS": sessionBus])
        guard run.status == 0 else { throw HarnessError("pyatspi \(args) failed (\(run.status)): \(run.err.suffix(1000))") }
        return run.out
    }
}
