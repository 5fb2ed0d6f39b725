import XCTest

@testable import RJIterator

/// `AnyValue` copies and destroys `Any?` by reading its layout; these tests pin that layout
/// and check ownership for each kind of payload an existential can hold.
final class AnyValueTests: XCTestCase {
    private struct Large: Equatable {
        var a = 1, b = 2, c = 3, d = 4, e = 5  // too big for the inline buffer: boxed
        var object: Tracked? = nil
        static func == (l: Large, r: Large) -> Bool { (l.a, l.b, l.c, l.d, l.e) == (r.a, r.b, r.c, r.d, r.e) }
    }

    func testTheLayoutItReadsIsTheOneSwiftUses() {
        XCTAssertEqual(MemoryLayout<Any?>.size, MemoryLayout<Any>.size)
        XCTAssertEqual(MemoryLayout<Any>.size, 4 * MemoryLayout<UInt>.size)
        var none: Any? = nil
        XCTAssertNil(withUnsafePointer(to: &none) { AnyValue.metadata($0) })
        var some: Any? = 5
        XCTAssertEqual(withUnsafePointer(to: &some) { AnyValue.metadata($0) },
                       unsafeBitCast(Int.self, to: UnsafeRawPointer.self))
    }

    func testCopiesKeepValueAndType() {
        let values: [Any?] = [nil, 7, "a string long enough to be allocated out of line", 2.5, Large(), [1, 2, 3], Optional<Int>.none as Any]
        for var value in values {
            let copy = withUnsafePointer(to: &value) { AnyValue.copy($0) }
            XCTAssertEqual(copy.map { "\(type(of: $0))" }, value.map { "\(type(of: $0))" })
            XCTAssertEqual(copy.map { "\($0)" }, value.map { "\($0)" })
        }
    }

    func testCopyRetainsAndDestroyReleasesInlineAndBoxedPayloads() {
        for boxed in [false, true] {
            weak var watched: Tracked?
            let slot = UnsafeMutablePointer<Any?>.allocate(capacity: 1)
            defer { slot.deallocate() }
            do {
                let object = Tracked()
                watched = object
                slot.initialize(to: boxed ? Large(object: object) : object)
            }
            let copy = AnyValue.copy(slot)
            AnyValue.destroy(slot)
            XCTAssertNotNil(watched, "the copy must own its own reference (boxed: \(boxed))")
            XCTAssertNotNil(copy)
            slot.initialize(to: consume copy)
            AnyValue.destroy(slot)
            XCTAssertNil(watched, "destroy must release (boxed: \(boxed))")
        }
    }

    // `RJResult.value(as:)`: the same answers as `as?`, read in place when the type is exact
    // (inline in the existential's buffer, or in a box), cast otherwise.
    func testValueAsAnswersAsACastDoes() {
        final class Ref { let n = 9 }
        let ref = Ref()
        XCTAssertEqual(RJResult(value: 42).value(as: Int.self), 42)
        XCTAssertEqual(RJResult(value: 2.5).value(as: Double.self), 2.5)
        let long = "a string long enough to be allocated out of line"
        XCTAssertEqual(RJResult(value: long).value(as: String.self), long)
        XCTAssertEqual(RJResult(value: Large(a: 10)).value(as: Large.self), Large(a: 10), "boxed")
        XCTAssertTrue(RJResult(value: ref).value(as: Ref.self) === ref)
        XCTAssertEqual(RJResult(value: [1, 2]).value(as: [Int].self), [1, 2])
        XCTAssertNil(RJResult(value: nil).value(as: Int.self))
        XCTAssertNil(RJResult(value: "7").value(as: Int.self), "another type")
        XCTAssertNil(RJResult(value: 7).value(as: String.self))
        // What only a cast does: unwrap an optional the value holds, or widen to a protocol.
        XCTAssertEqual(RJResult(value: Optional<Int>.some(3) as Any).value(as: Int.self), 3)
        XCTAssertEqual(RJResult(value: 5).value(as: (any CustomStringConvertible).self)?.description, "5")
        // Ownership: the value read is a copy, the result keeps its own.
        weak var gone: Tracked?
        do {
            let tracked = Tracked()
            gone = tracked
            let r = RJResult(value: Large(object: tracked))
            XCTAssertTrue(r.value(as: Large.self)?.object === tracked)
            XCTAssertTrue((r.value as? Large)?.object === tracked)
        }
        XCTAssertNil(gone, "nothing leaked")
    }
}
