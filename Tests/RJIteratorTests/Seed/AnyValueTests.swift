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
}
