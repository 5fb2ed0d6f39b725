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

    // The flags `isBitwise(type:)` reads from a type's value witness table: a trivial type that
    // fits the existential's three words is copied as bytes; anything with a reference, or
    // larger (stored in a box), goes through its witnesses.
    func testOnlyTrivialInlineTypesAreCopiedAsBytes() {
        func bitwise<T>(_: T.Type) -> Bool { AnyValue.isBitwise(type: unsafeBitCast(T.self, to: UnsafeRawPointer.self)) }
        struct Point { var x = 1.0, y = 2.0 }
        struct FourWords { var a = 1, b = 2, c = 3, d = 4 }
        final class Ref {}
        XCTAssertTrue(bitwise(Int.self))
        XCTAssertTrue(bitwise(Double.self))
        XCTAssertTrue(bitwise(Bool.self))
        XCTAssertTrue(bitwise(Point.self))
        XCTAssertTrue(bitwise((Int, Int, Int).self))
        XCTAssertTrue(bitwise(Int?.self))
        XCTAssertFalse(bitwise(FourWords.self), "trivial but boxed: larger than three words")
        XCTAssertFalse(bitwise(String.self))
        XCTAssertFalse(bitwise(Ref.self))
        XCTAssertFalse(bitwise([Int].self))
        XCTAssertFalse(bitwise(Large.self))
        XCTAssertFalse(bitwise(Any.self), "an existential's container")
        // What the flags say is what Swift says of the type.
        XCTAssertEqual(bitwise(Point.self), _isPOD(Point.self))
        XCTAssertEqual(bitwise(String.self), _isPOD(String.self))
    }

    func testCopiesKeepValueAndType() {
        struct FourWords: CustomStringConvertible { var a = 1, b = 2, c = 3, d = 4; var description: String { "\(a)\(b)\(c)\(d)" } }
        let values: [Any?] = [nil, 7, "a string long enough to be allocated out of line", 2.5, Large(), [1, 2, 3],
                              Optional<Int>.none as Any, (1, 2.5, true), FourWords()]
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

    // `RJResult.value` is read and written through `AnyValue`: a set releases what it replaces,
    // a read is a copy the result does not share, a copy of the result owns its own.
    func testValueSetReleasesWhatItReplacesAndReadsAreCopies() {
        weak var first: Tracked?
        weak var second: Tracked?
        var r = RJResult(value: 1)
        do {
            let a = Tracked()
            first = a
            r.value = a
        }
        XCTAssertNotNil(first)
        var copy = r
        do {
            let b = Tracked()
            second = b
            r.value = b
        }
        XCTAssertNotNil(first, "the copy still holds it")
        XCTAssertTrue(copy.value as? Tracked === first)
        copy.value = nil
        XCTAssertNil(first, "released by the set that replaced it")
        XCTAssertTrue(r.value as? Tracked === second)
        r.value = 5
        XCTAssertNil(second)
        XCTAssertEqual(r.value as? Int, 5)
        // In place, through the optional: `_modify`.
        var list = RJResult(value: [1, 2])
        if var array = list.value as? [Int] { array.append(3); list.value = array }
        XCTAssertEqual(list.value as? [Int], [1, 2, 3])
        list.value? = "replaced"
        XCTAssertEqual(list.value as? String, "replaced")
        XCTAssertFalse(list.done)
        XCTAssertNil(list.error)
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
