import Dispatch
import Foundation
import XCTest

@testable import RJPromises

final class PromiseOperatorTests: PromiseTestCase {
    func testThenVariants() {
        XCTAssertEqual(value(Promise(2).then { $0 * 21 }), 42)
        XCTAssertEqual(value(Promise(2).then { Promise("\($0)").delay(0.01) }), "2")
        let seen = Recorder<Int>()
        XCTAssertEqual(value(Promise(5).then { seen.add($0) }), 5)
        XCTAssertEqual(seen.all, [5])
        XCTAssertEqual(error(Promise(1).then { _ -> Int in throw TestError(code: 1) }) as? TestError, TestError(code: 1))
    }

    func testRejectionSkipsThenAndReachesOneCatch() {
        let ran = Recorder<String>()
        let p = Promise<Int>(TestError(code: 3))
            .then { v -> Int in ran.add("then1"); return v }
            .then { _ in ran.add("then2") }
            .catch { ran.add("catch \(($0 as? TestError)?.code ?? -1)") }
        XCTAssertEqual(error(p) as? TestError, TestError(code: 3))
        XCTAssertEqual(ran.all, ["catch 3"])
    }

    func testAdoptingAPromiseThatResolvesLater() {
        let later = Promise<Int>.pending()
        let chained = Promise(1).then { _ in later }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { later.fulfill(10) }
        XCTAssertEqual(value(chained), 10)
    }

    func testBlockReturningItsOwnPromiseRejectsInsteadOfHanging() {
        final class Box: @unchecked Sendable { var promise: Promise<Int>? }
        let box = Box()
        let gate = Promise<Int>.pending()
        box.promise = gate.then { _ in box.promise! }
        gate.fulfill(1)
        XCTAssertEqual(error(box.promise!) as? PromiseError, .chainingCycle)
        XCTAssertTrue("\(PromiseError.chainingCycle)".hasPrefix("RJPromises:"))
    }

    func testRecoverReplacesAnErrorWithAValueOrAPromiseAndLetsValuesThrough() {
        XCTAssertEqual(value(Promise<Int>(TestError(code: 1)).recover { _ in 5 }), 5)
        XCTAssertEqual(value(Promise<Int>(TestError(code: 1)).recover { _ in Promise(6) }), 6)
        XCTAssertEqual(value(Promise(7).recover { _ in 0 }), 7)
        XCTAssertEqual(error(Promise<Int>(TestError(code: 1)).recover { _ -> Int in throw TestError(code: 2) }) as? TestError,
                       TestError(code: 2))
    }

    func testFinallyRunsOnBothOutcomes() {
        let ran = Recorder<String>()
        XCTAssertEqual(value(Promise(1).finally { ran.add("a") }), 1)
        XCTAssertNotNil(error(Promise<Int>(TestError(code: 1)).finally { ran.add("b") }))
        XCTAssertEqual(ran.all, ["a", "b"])
    }

    // google/promises' `always`, deprecated for `finally` (issue 30: one word), still works.
    func testAlwaysIsFinallysOldName() {
        let ran = Recorder<String>()
        XCTAssertEqual(value(always(Promise(1)) { ran.add("a") }), 1)
        XCTAssertNotNil(error(always(Promise<Int>(TestError(code: 1))) { ran.add("b") }))
        XCTAssertEqual(ran.all, ["a", "b"])
    }

    func testValidateRejectsAValueThatFailsThePredicate() {
        XCTAssertEqual(value(Promise(3).validate { $0 > 0 }), 3)
        XCTAssertEqual(error(Promise(-3).validate { $0 > 0 }) as? PromiseError, .validationFailure)
    }

    func testTimeoutRejectsAPromiseStillPendingAfterItsInterval() {
        XCTAssertEqual(error(Promise<Int>.pending().timeout(0.02)) as? PromiseError, .timedOut)
        XCTAssertEqual(value(Promise(1).timeout(5)), 1)
        XCTAssertEqual(value(Promise(1).delay(0.01).timeout(5)), 1)
    }

    func testDelayWaitsForValuesButNotErrors() {
        let start = Date()
        XCTAssertEqual(value(Promise(1).delay(0.05)), 1)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.045)
        let rejectedStart = Date()
        XCTAssertNotNil(error(Promise<Int>(TestError(code: 1)).delay(10)))
        XCTAssertLessThan(Date().timeIntervalSince(rejectedStart), 5)
    }

    func testRetrySucceedsAfterFailures() {
        let tries = Recorder<Int>()
        let p = Promises.retry(attempts: 3, delay: 0.001) { () -> Promise<String> in
            tries.add(1)
            return tries.all.count < 3 ? Promise(TestError(code: tries.all.count)) : Promise("ok")
        }
        XCTAssertEqual(value(p), "ok")
        XCTAssertEqual(tries.all.count, 3)
    }

    func testRetryGivesUpAfterAttemptsAndHonoursCondition() {
        let tries = Recorder<Int>()
        let p = Promises.retry(attempts: 2, delay: 0.001) { () -> Promise<Int> in
            tries.add(1)
            throw TestError(code: tries.all.count)
        }
        XCTAssertEqual(error(p) as? TestError, TestError(code: 3), "one try plus two retries")
        let stopped = Recorder<Int>()
        let q = Promises.retry(attempts: 5, delay: 0.001, condition: { remaining, _ in remaining > 4 }) { () -> Promise<Int> in
            stopped.add(1)
            return Promise(TestError(code: 0))
        }
        XCTAssertNotNil(error(q))
        XCTAssertEqual(stopped.all.count, 2)
    }

    func testAllKeepsOrderAndFailsFast() {
        let slow = Promise(1).delay(0.03)
        XCTAssertEqual(value(Promises.all([slow, Promise(2), Promise(3)])), [1, 2, 3])
        let never = Promise<Int>.pending()
        XCTAssertEqual(error(Promises.all([never, Promise(TestError(code: 9))])) as? TestError, TestError(code: 9))
        XCTAssertEqual(value(Promises.all([Promise<Int>]())), [])
    }

    func testAllHeterogeneous() {
        let pair = value(Promises.all(Promise(1), Promise("a")))
        XCTAssertEqual(pair?.0, 1)
        XCTAssertEqual(pair?.1, "a")
        let triple = value(Promises.all(Promise(1), Promise("b"), Promise(2.5)))
        XCTAssertEqual(triple?.2, 2.5)
        let quad = value(Promises.all(Promise(1), Promise("c"), Promise(true), Promise([1])))
        XCTAssertEqual(quad?.3, [1])
        XCTAssertNotNil(error(Promises.all(Promise(1), Promise<String>(TestError(code: 1)))))
    }

    func testAnyWaitsForAllAndReportsEach() {
        let results = value(Promises.any([Promise(1), Promise(TestError(code: 2)), Promise(3).delay(0.01)]))
        XCTAssertEqual(results?.count, 3)
        XCTAssertEqual(try results?[0].get(), 1)
        XCTAssertThrowsError(try results?[1].get())
        XCTAssertEqual(try results?[2].get(), 3)
        let allFailed = Promises.any([Promise<Int>(TestError(code: 1)), Promise<Int>(TestError(code: 2)).delay(0)])
        XCTAssertNotNil(error(allFailed) as? TestError)
        XCTAssertEqual(value(Promises.any([Promise<Int>]()))?.count, 0)
    }

    func testRaceTakesTheFirstAndEmptyRejectsAtOnce() {
        XCTAssertEqual(value(Promises.race([Promise(1).delay(0.2), Promise(2)])), 2)
        XCTAssertEqual(error(Promises.race([Promise<Int>.pending(), Promise(TestError(code: 4))])) as? TestError,
                       TestError(code: 4))
        let empty = Promises.race([Promise<Int>]())
        XCTAssertEqual(empty.error as? PromiseError, .emptyRace, "rejected at once, not later")
    }

    func testReduceFoldsInOrder() {
        XCTAssertEqual(value(Promise(0).reduce([1, 2, 3, 4]) { sum, n in Promise(sum * 10 + n) }), 1234)
        XCTAssertEqual(error(Promise(0).reduce([1, 2]) { _, n -> Promise<Int> in throw TestError(code: n) }) as? TestError,
                       TestError(code: 1))
    }

    func testWrapShapes() {
        let optional: Promise<Int?> = Promises.wrap { (handler: @escaping @Sendable (Int?, (any Error)?) -> Void) in
            DispatchQueue.global().async { handler(5, nil) }
        }
        XCTAssertEqual(value(optional), 5)
        let failing: Promise<Int?> = Promises.wrap { (handler: @escaping @Sendable (Int?, (any Error)?) -> Void) in
            handler(nil, TestError(code: 1))
        }
        XCTAssertNotNil(error(failing))
        let errorOnly: Promise<Void> = Promises.wrap { (handler: @escaping @Sendable ((any Error)?) -> Void) in handler(nil) }
        XCTAssertNotNil(value(errorOnly))
        let plain: Promise<String> = Promises.wrap { (handler: @escaping @Sendable (String) -> Void) in handler("x") }
        XCTAssertEqual(value(plain), "x")
        let result: Promise<Int> = Promises.wrap { (handler: @escaping @Sendable (Result<Int, any Error>) -> Void) in
            handler(.success(8))
        }
        XCTAssertEqual(value(result), 8)
        let calledTwice: Promise<Int> = Promises.wrap { (handler: @escaping @Sendable (Int) -> Void) in
            handler(1)
            handler(2)
        }
        XCTAssertEqual(value(calledTwice), 1)
    }

    /// Callbacks of the usual shapes, passed on without a type annotation, pick the error-aware
    /// `wrap` (not the plain one with `Value == Error?`, which would fulfil with the error).
    func testWrapInfersTheErrorAwareShapeWithoutAnnotation() {
        @Sendable func legacySave(_ done: @escaping @Sendable ((any Error)?) -> Void) { done(TestError(code: 3)) }
        @Sendable func legacyLoad(_ done: @escaping @Sendable (Int?, (any Error)?) -> Void) { done(nil, TestError(code: 4)) }
        let saved = Promises.wrap { handler in legacySave(handler) }
        XCTAssertEqual(error(saved) as? TestError, TestError(code: 3))
        let loaded = Promises.wrap { handler in legacyLoad(handler) }
        XCTAssertEqual(error(loaded) as? TestError, TestError(code: 4))
    }

    /// As in google/promises, `Promise(error)` is a rejected promise, with or without a type
    /// annotation, even when the value type could hold the error.
    func testPromiseOfAnErrorIsRejected() {
        let named = Promise<Int>(TestError(code: 5))
        XCTAssertEqual(error(named) as? TestError, TestError(code: 5))
        let typed: Promise<Int> = Promise(TestError(code: 6))
        XCTAssertEqual(error(typed) as? TestError, TestError(code: 6))
        let anyError = Promise<any Error>(TestError(code: 7))
        XCTAssertEqual(error(anyError) as? TestError, TestError(code: 7))
        // With nothing else to infer the value type from.
        let inferred = Promise(TestError(code: 8))
        XCTAssertEqual(error(inferred) as? TestError, TestError(code: 8))
        let sameType = Promise<TestError>(TestError(code: 9))
        XCTAssertEqual(error(sameType) as? TestError, TestError(code: 9))
        // A promise fulfilled with an error value, explicitly.
        let holding = Promise<any Error>.pending()
        holding.fulfill(TestError(code: 10))
        XCTAssertEqual(value(holding) as? TestError, TestError(code: 10))
    }

    func testAwaitPromiseBlocksUntilSettled() throws {
        let p = Promise<Int>.pending()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { p.fulfill(11) }
        XCTAssertEqual(try p.awaitPromise(), 11)
        XCTAssertThrowsError(try Promise<Int>(TestError(code: 1)).awaitPromise())
    }

    func testValueFromSwiftConcurrency() async throws {
        let p = Promise<Int>.pending()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { p.fulfill(12) }
        let v = try await p.value
        XCTAssertEqual(v, 12)
        do {
            _ = try await Promise<Int>(TestError(code: 3)).value
            XCTFail("expected a throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(code: 3))
        }
    }
}

/// `Promise.always`, read through a protocol it satisfies: the deprecated name is tested
/// without a deprecation warning.
private protocol HasAlways {
    associatedtype Value: Sendable
    func always(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) -> Promise<Value>
}
extension Promise: HasAlways {}
private func always<P: HasAlways>(_ promise: P, _ work: @escaping @Sendable () -> Void) -> Promise<P.Value> {
    promise.always(on: .promises, work)
}
