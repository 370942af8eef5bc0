import XCTest
@testable import ReelSystem

final class XMLTextTests: XCTestCase {
    func testXMLEscapesAreDecodedInOnePass() {
        XCTAssertEqual(XMLText.unescaped("a&amp;b &lt;&gt; &quot;&apos; &#233;&#x2013;"), "a&b <> \"' é–")
        XCTAssertEqual(XMLText.unescaped("&amp;lt; &#38;#38;"), "&lt; &#38;")
        XCTAssertEqual(XMLText.unescaped("&nbsp; & &#xD800; &;"), "&nbsp; & &#xD800; &;")
    }
}
