import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// What reeld serves, read by the strict parsers and proxies that desktop
/// clients use: libxml2 and expat for the introspection XML, dbus-next and
/// dbus-python proxies for every property, and qdbus's listing.
final class StrictClientTests: DaemonTestCase {
    static let paths = ["/", "/org", "/org/mpris", MPRIS.objectPath]
    let python = URL(fileURLWithPath: "/usr/bin/python3")

    func introspect(_ path: String) throws -> String {
        let reply = try client.callMethod("org.mpris.MediaPlayer2.reel", path, "org.freedesktop.DBus.Introspectable", "Introspect")
        return try XCTUnwrap(reply.first?.string)
    }

    /// Every property of reel's object, by interface, from the shipped XML.
    func properties() throws -> [String: [String]] {
        let specs = InterfaceSpec.parse(try introspect(MPRIS.objectPath))
        return Dictionary(uniqueKeysWithValues: specs.filter { !$0.properties.isEmpty }.map { ($0.name, $0.properties.keys.sorted()) })
    }

    func runPython(_ script: String, _ args: [String] = []) throws -> (Int32, String) {
        let file = home.appendingPathComponent("client-\(UUID().uuidString.prefix(6)).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        return try runTool(python, [file.path] + args, timeout: 20)
    }

    func testIntrospectionOfEveryPathIsWellFormedForLibxml2AndExpat() throws {
        try startDaemon()
        for path in Self.paths {
            let xml = try introspect(path)
            let parser = XMLParser(data: Data(xml.utf8))
            XCTAssertTrue(parser.parse(), "libxml2 refuses the introspection of \(path): \(String(describing: parser.parserError))")
            let file = home.appendingPathComponent("introspect.xml")
            try xml.write(to: file, atomically: true, encoding: .utf8)
            let (status, output) = try runPython("""
                import sys, xml.parsers.expat
                p = xml.parsers.expat.ParserCreate()
                p.Parse(open(sys.argv[1], 'rb').read(), True)
                print('ok')
                """, [file.path])
            XCTAssertEqual(status, 0, "expat refuses the introspection of \(path): \(output)")
        }
    }

    func testADBusNextProxyReadsEveryProperty() throws {
        try startDaemon([media.tones[0]])
        let expected = try properties()
        let (status, output) = try runPython("""
            import asyncio, json
            from dbus_next.aio import MessageBus
            from dbus_next.proxy_object import BaseProxyInterface
            async def main():
                bus = await MessageBus().connect()
                name, path = 'org.mpris.MediaPlayer2.reel', '/org/mpris/MediaPlayer2'
                node = await bus.introspect(name, path)
                obj = bus.get_proxy_object(name, path, node)
                read = {}
                for interface in node.interfaces:
                    if not interface.properties: continue
                    proxy = obj.get_interface(interface.name)
                    for prop in interface.properties:
                        value = await getattr(proxy, 'get_' + BaseProxyInterface._to_snake_case(prop.name))()
                        read.setdefault(interface.name, []).append(prop.name)
                print(json.dumps(read))
            asyncio.run(main())
            """)
        XCTAssertEqual(status, 0, output)
        let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((output.split(separator: "\n").last ?? "").utf8))
            as? [String: [String]], output)
        XCTAssertEqual(read.mapValues { $0.sorted() }, expected)
    }

    func testADBusPythonProxyIntrospectsAndReadsEveryProperty() throws {
        try startDaemon([media.tones[0]])
        let expected = try properties()
        let (status, output) = try runPython("""
            import dbus, json, sys
            bus = dbus.SessionBus()
            obj = bus.get_object('org.mpris.MediaPlayer2.reel', '/org/mpris/MediaPlayer2')
            props = dbus.Interface(obj, 'org.freedesktop.DBus.Properties')
            read = {}
            for interface in sys.argv[1:]:
                read[interface] = sorted(str(k) for k in props.GetAll(interface).keys())
            # A method through the introspected proxy: dbus-python uses the XML for its signature.
            obj.Get('org.mpris.MediaPlayer2.Player', 'PlaybackStatus', dbus_interface='org.freedesktop.DBus.Properties')
            print(json.dumps(read))
            """, expected.keys.sorted())
        XCTAssertEqual(status, 0, output)
        XCTAssertFalse(output.contains("IntrospectionParserException"), output)
        let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((output.split(separator: "\n").last ?? "").utf8))
            as? [String: [String]], output)
        XCTAssertEqual(read, expected)
    }

    func testQdbusListsEveryProperty() throws {
        let qdbus = URL(fileURLWithPath: "/usr/bin/qdbus")
        guard FileManager.default.isExecutableFile(atPath: qdbus.path) else { throw XCTSkip("qdbus (qdbus-qt5) is not installed") }
        try startDaemon()
        let expected = try properties()
        let (status, output) = try runTool(qdbus, ["org.mpris.MediaPlayer2.reel", MPRIS.objectPath], timeout: 20)
        XCTAssertEqual(status, 0, output)
        // "property read {D-Bus type "(xx)"} dev.reel.Daemon1.CacheFill", one line a property.
        let listed = Set(output.split(separator: "\n").filter { $0.hasPrefix("property ") }.compactMap { $0.split(separator: " ").last })
        for (interface, names) in expected {
            for name in names {
                XCTAssertTrue(listed.contains("\(interface).\(name)"[...]), "qdbus does not list \(interface).\(name):\n\(output)")
            }
        }
    }
}
