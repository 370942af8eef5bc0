import XCTest
@testable import ReelDBus

final class MarshallingTests: XCTestCase {
    func roundTrip(_ values: [DBusValue]) throws -> Message {
        try Message.signal(path: "/test", interface: "dev.reel.Test", member: "Values", values)
    }

    func testEveryTypeSurvivesARoundTrip() throws {
        let values: [DBusValue] = [
            .byte(255), .boolean(true), .boolean(false), .int16(-3), .uint16(65535), .int32(-70000), .uint32(4_000_000_000),
            .int64(.min), .uint64(.max), .double(-0.25), .string("grüße ♫"), .objectPath("/dev/reel/Track/7"),
            .signature("a{sv}"), .strings(["a", "b"]), .array(elementSignature: "x", []),
            .vardict([("mpris:length", .int64(5_000_000)), ("xesam:artist", .strings(["A", "B"]))]),
            .structure([.int32(1), .string("two")]), .variant(.variant(.double(1.5))),
            .array(elementSignature: "a{sv}", [.vardict([]), .vardict([("k", .boolean(true))])]),
        ]
        let message = try roundTrip(values)
        XCTAssertEqual(message.signature, values.map(\.signature).joined())
        XCTAssertEqual(message.arguments, values)
    }

    func testEmptyArraysKeepTheirElementType() throws {
        let message = try roundTrip([.objectPaths([]), .vardict([])])
        XCTAssertEqual(message.signature, "aoa{sv}")
    }

    func testInvalidValuesAreRefusedInsteadOfAbortingLibdbus() {
        XCTAssertThrowsError(try roundTrip([.objectPath("not a path")]))
        XCTAssertThrowsError(try roundTrip([.signature("a{")]))
        XCTAssertThrowsError(try roundTrip([.array(elementSignature: "s", [.int32(1)])]), "element type mismatch")
    }

    func testNULInStringsIsReplacedRatherThanCrashing() throws {
        let message = try roundTrip([.string("a\0b")])
        XCTAssertEqual(message.arguments, [.string("a\u{FFFD}b")])
    }

    func testAccessorsUnwrapVariantsAndDictionaries() {
        let dict = DBusValue.vardict([("a", .string("x")), ("n", .int32(4))])
        XCTAssertEqual(dict.dictionary?["a"], .string("x"))
        XCTAssertEqual(dict.dictionary?["n"]?.int64, 4)
        XCTAssertEqual(DBusValue.variant(.boolean(true)).unwrapped.bool, true)
        XCTAssertNil(DBusValue.string("x").double)
        XCTAssertEqual(DBusValue.strings(["p", "q"]).stringArray, ["p", "q"])
    }
}
