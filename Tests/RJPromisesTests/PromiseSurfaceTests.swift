import Dispatch
import XCTest

@testable import RJPromises

/// google/promises' API surface, modelled on its own tests (PromiseAllTests, PromiseAnyTests,
/// PromiseRaceTests, PromiseWrapTests, PromiseDoTests): the spellings a user ports, and that
/// overload resolution picks what google's picks.
final class PromiseSurfaceTests: PromiseTestCase {
    func testVoidPromiseSpelling() {
        let ready = Promise()
        XCTAssertTrue(ready.isFulfilled)
        XCTAssertEqual(value(ready.then { _ in "after" }), "after")
    }

    /// A block returning a promise is adopted (`Promise<Int>`, not `Promise<Promise<Int>>`),
    /// without a type annotation, as google's `Promise { Promise(1) }`.
    func testDoBlockReturningAPromiseIsAdoptedWithoutAnnotation() {
        let adopted = Promise(on: .global()) { () throws -> Promise<Int> in Promise(3).delay(0.01) }
        XCTAssertEqual(value(adopted), 3)
        let plain = Promise(on: .global()) { 4 }
        XCTAssertEqual(value(plain), 4)
    }

    func testAllAnyRaceTakeVariadicArgumentsAndAnySequence() {
        let five = (1...5).map { n in Promise(n).delay(0.001 * Double(6 - n)) }
        XCTAssertEqual(value(Promises.all(five[0], five[1], five[2], five[3], five[4])), [1, 2, 3, 4, 5])
        XCTAssertEqual(value(Promises.all(five.lazy.filter { _ in true })), [1, 2, 3, 4, 5])
        XCTAssertEqual(value(Promises.all(Set([ObjectIdentifier(five[0])]).map { _ in five[0] })), [1])

        let slow = Promise(1).delay(0.2)
        let fast = Promise(2).delay(0.001)
        XCTAssertEqual(value(Promises.race(slow, fast)), 2)
        XCTAssertEqual(value(Promises.race(AnySequence([slow, fast]))), 2)

        let failing = Promise<Int>(TestError(code: 1))
        let results = value(Promises.any(Promise(1), failing, Promise(3), Promise(4)))
        XCTAssertEqual(results?.map { try? $0.get() }, [1, nil, 3, 4])
        XCTAssertEqual(value(Promises.any((1...3).map { Promise($0) }))?.count, 3)
    }

    /// Two or three arguments of one type give a tuple, as in google/promises.
    func testTwoArgumentsOfOneTypeGiveATuple() {
        let pair = value(Promises.all(Promise(1), Promise(2)))
        XCTAssertEqual(pair?.0, 1)
        XCTAssertEqual(pair?.1, 2)
    }

    func testHeterogeneousAny() {
        let both = value(Promises.any(Promise("user"), Promise<Int>(TestError(code: 2))))
        XCTAssertEqual(try both?.0.get(), "user")
        XCTAssertThrowsError(try both?.1.get()) { XCTAssertEqual($0 as? TestError, TestError(code: 2)) }

        let three = value(Promises.any(Promise<String>(TestError(code: 3)), Promise(2.5), Promise([1, 2])))
        XCTAssertNil(try? three?.0.get())
        XCTAssertEqual(try three?.1.get(), 2.5)
        XCTAssertEqual(try three?.2.get(), [1, 2])

        // Rejected with the last error when every one was rejected.
        let none = Promises.any(Promise<String>(TestError(code: 4)), Promise<Int>(TestError(code: 5)).delay(0.01))
        XCTAssertEqual(error(none) as? TestError, TestError(code: 5))
    }

    /// Each callback shape of google's `wrap`, passed on without annotations, as a user would.
    func testWrapEveryCallbackShape() {
        @Sendable func completion(_ done: @escaping @Sendable () -> Void) { DispatchQueue.global().async(execute: done) }
        @Sendable func errorFirstOptional(ok: Bool, _ done: @escaping @Sendable ((any Error)?, String?) -> Void) {
            ok ? done(nil, "read") : done(TestError(code: 6), nil)
        }
        @Sendable func errorFirst(_ done: @escaping @Sendable ((any Error)?, Int) -> Void) { done(nil, 7) }
        @Sendable func valueFirst(ok: Bool, _ done: @escaping @Sendable (Int, (any Error)?) -> Void) {
            ok ? done(8, nil) : done(0, TestError(code: 8))
        }
        @Sendable func twoValues(_ done: @escaping @Sendable (String?, Int?, (any Error)?) -> Void) { done("page", 2, nil) }
        @Sendable func twoValuesFailing(_ done: @escaping @Sendable (String?, Int?, (any Error)?) -> Void) {
            done("ignored", nil, TestError(code: 9))
        }

        let completed = Promises.wrap { handler in completion(handler) }
        XCTAssertNotNil(value(completed))

        let read = Promises.wrap { handler in errorFirstOptional(ok: true, handler) }
        XCTAssertEqual(value(read), "read")   // a Promise<String?>
        XCTAssertEqual(error(Promises.wrap { handler in errorFirstOptional(ok: false, handler) }) as? TestError,
                       TestError(code: 6))

        let seven: Promise<Int> = Promises.wrap { handler in errorFirst(handler) }
        XCTAssertEqual(value(seven), 7)

        let eight: Promise<Int> = Promises.wrap { handler in valueFirst(ok: true, handler) }
        XCTAssertEqual(value(eight), 8)
        XCTAssertEqual(error(Promises.wrap { handler in valueFirst(ok: false, handler) }) as? TestError, TestError(code: 8))

        let pair = value(Promises.wrap { handler in twoValues(handler) })
        XCTAssertEqual(pair?.0, "page")
        XCTAssertEqual(pair?.1, 2)
        XCTAssertEqual(error(Promises.wrap { handler in twoValuesFailing(handler) }) as? TestError, TestError(code: 9))
    }
}
