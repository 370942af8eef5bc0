import XCTest
@testable import ReelDBus

final class IntrospectionTests: XCTestCase {
    let xml = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN" "x">
        <node>
          <!-- a <comment> with a tag in it -->
          <interface name="org.example.A">
            <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
            <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
            <method name="Get">
              <arg type="s"/><arg type='o' direction="in"/>
              <arg type="a{sv}" direction="out"/>
            </method>
            <method name="Ping"/>
            <signal name="Seeked"><arg type="x"/></signal>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read">
              <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
            </property>
          </interface>
          <interface name="org.example.B"/>
        </node>
        """

    func testParsesMethodsSignalsAndProperties() throws {
        let specs = InterfaceSpec.parse(xml)
        XCTAssertEqual(specs.map(\.name), ["org.example.A"])
        let a = try XCTUnwrap(specs.first)
        XCTAssertEqual(a.methods["Seek"]?.inSignature, "x")
        XCTAssertEqual(a.methods["Get"]?.inSignature, "so")
        XCTAssertEqual(a.methods["Get"]?.outSignature, "a{sv}")
        XCTAssertEqual(a.methods["Ping"]?.inSignature, "")
        XCTAssertEqual(a.signals, ["Seeked"])
        XCTAssertEqual(a.properties["Rate"], .init(type: "d", writable: true, emitsChanged: "const"))
        XCTAssertEqual(a.properties["Position"], .init(type: "x", writable: false, emitsChanged: "false"))
    }

    func testTheShippedInterfaceFileDescribesMPRIS() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../dbus/org.mpris.MediaPlayer2.reel.xml")
        let specs = Dictionary(uniqueKeysWithValues: InterfaceSpec.parse(try String(contentsOf: url, encoding: .utf8))
            .map { ($0.name, $0) })
        let player = try XCTUnwrap(specs["org.mpris.MediaPlayer2.Player"])
        XCTAssertEqual(player.methods["SetPosition"]?.inSignature, "ox")
        XCTAssertEqual(player.properties["Position"]?.emitsChanged, "false")
        XCTAssertEqual(player.properties["CanControl"]?.emitsChanged, "false")
        XCTAssertEqual(player.properties["LoopStatus"]?.writable, true)
        XCTAssertEqual(player.properties["PlaybackStatus"]?.writable, false)
        XCTAssertEqual(specs["org.mpris.MediaPlayer2.TrackList"]?.properties["Tracks"]?.emitsChanged, "invalidates")
        XCTAssertEqual(specs["org.mpris.MediaPlayer2.TrackList"]?.methods["AddTrack"]?.inSignature, "sob")
        XCTAssertNotNil(specs["dev.reel.Daemon1"]?.methods["Add"])
    }
}
