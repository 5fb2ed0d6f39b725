import Foundation
import XCTest

@testable import RJIterator

final class GeneratorTests: XCTestCase {
    func testNothingRunsBeforeFirstNext() throws {
        var ran = false
        let gen = Generator<Int, Void, Void> { y in
            ran = true
            try y.yield(1)
        }
        XCTAssertFalse(ran)
        XCTAssertEqual(gen.state, .created)
        XCTAssertEqual(try gen.next().yieldedValue, 1)
        XCTAssertTrue(ran)
        XCTAssertEqual(gen.state, .suspended)
    }

    func testFirstInputIgnoredAndYieldReturnsNextInput() throws {
        var inputs: [Int] = []
        let gen = Generator<String, Int, Int> { y in
            inputs.append(try y.yield("a"))
            inputs.append(try y.yield("b"))
            return inputs.reduce(0, +)
        }
        XCTAssertEqual(try gen.next(100), .yielded("a"))
        XCTAssertEqual(try gen.next(1), .yielded("b"))
        XCTAssertEqual(try gen.next(2), .returned(3))
        XCTAssertEqual(inputs, [1, 2])
    }

    func testYieldFromNestedCalls() throws {
        func leaf(_ y: Yielder<Int, Void>, _ n: Int) throws {
            if n == 0 { return }
            try y.yield(n)
            try leaf(y, n - 1)
        }
        let gen = Generator<Int, Void, Void> { y in try leaf(y, 5) }
        XCTAssertEqual(try yieldedValues(gen), [5, 4, 3, 2, 1])
    }

    func testReturnedValueRepeats() throws {
        let gen = Generator<Int, Void, String> { y in
            try y.yield(1)
            return "end"
        }
        XCTAssertEqual(try gen.next(), .yielded(1))
        XCTAssertEqual(try gen.next(), .returned("end"))
        XCTAssertEqual(try gen.next(), .returned("end"))
        XCTAssertEqual(gen.state, .completed)
    }

    /// A return value is kept for the later `next` calls in one of two ways: a trivial value of
    /// at most three words in the generator's own bytes, anything else boxed in an `Any`. Each
    /// layout at the edge of the two, and a class instance, which is released with the
    /// generator.
    func testReturnedValueOfEveryLayoutRepeatsAndIsReleasedWithTheGenerator() throws {
        struct Three: Equatable { var a: Int, b: Int, c: Int }           // 24 bytes: kept inline
        struct Four: Equatable { var a: Int, b: Int, c: Int, d: Int }     // 32 bytes: boxed
        struct Odd: Equatable { var a: UInt8, b: Int32, c: Double }     // padded: kept inline
        func returnsTwice<R: Equatable>(_ value: R, line: UInt = #line) throws {
            let gen = Generator<Int, Void, R> { y in
                try y.yield(1)
                return value
            }
            XCTAssertEqual(try gen.next(), .yielded(1), line: line)
            XCTAssertEqual(try gen.next(), .returned(value), line: line)
            XCTAssertEqual(try gen.next(), .returned(value), line: line)
            XCTAssertEqual(try gen.return(value), .returned(value), line: line)
            XCTAssertEqual(try gen.next(), .returned(value), line: line)
        }
        try returnsTwice(-7)
        try returnsTwice(Three(a: 1, b: -2, c: .max))
        try returnsTwice(Four(a: 1, b: 2, c: 3, d: .min))
        try returnsTwice(Odd(a: 200, b: -5, c: 2.5))
        try returnsTwice("a string long enough to be stored out of line, not in the String itself")
        try returnsTwice([1, 2, 3])
        let void = Generator<Int, Void, Void> { _ in }
        guard case .returned = try void.next(), case .returned = try void.next() else {
            return XCTFail("a Void body's end is reported again")
        }

        final class Token {}
        weak var released: Token?
        do {
            let gen = Generator<Int, Void, Token> { _ in
                let token = Token()
                released = token
                return token
            }
            guard case .returned(let first) = try gen.next(), case .returned(let again) = try gen.next() else {
                return XCTFail("the object is returned twice")
            }
            XCTAssertTrue(first === again)
            XCTAssertNotNil(released)
        }
        XCTAssertNil(released, "the kept return value is released with its generator")
    }

    func testBodyErrorIsThrownAndRepeats() throws {
        let gen = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 7)
        }
        XCTAssertEqual(try gen.next().yieldedValue, 1)
        XCTAssertThrowsError(try gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 7)) }
        XCTAssertThrowsError(try gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 7)) }
        XCTAssertEqual(gen.state, .completed)
    }

    func testThrowIsCaughtByBodyWhichYieldsAgain() throws {
        let gen = Generator<String, Void, String> { y in
            do {
                try y.yield("first")
            } catch let e as TestError {
                try y.yield("caught \(e.code)")
            }
            return "done"
        }
        XCTAssertEqual(try gen.next(), .yielded("first"))
        XCTAssertEqual(try gen.throw(TestError(code: 3)), .yielded("caught 3"))
        XCTAssertEqual(try gen.next(), .returned("done"))
    }

    func testThrowUncaughtPropagatesAndCompletes() throws {
        let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
        _ = try gen.next()
        XCTAssertThrowsError(try gen.throw(TestError(code: 1))) { XCTAssertEqual($0 as? TestError, TestError(code: 1)) }
        XCTAssertEqual(gen.state, .completed)
        XCTAssertThrowsError(try gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 1)) }
    }

    func testReturnRunsPendingDefersAndCatchClauses() throws {
        var log: [String] = []
        let gen = Generator<Int, Void, String> { y in
            defer { log.append("defer") }
            do {
                try y.yield(1)
                try y.yield(2)
            } catch {
                log.append("catch")
                throw error
            }
            return "normal"
        }
        XCTAssertEqual(try gen.next(), .yielded(1))
        XCTAssertEqual(try gen.return("early"), .returned("early"))
        XCTAssertEqual(log, ["catch", "defer"])
        XCTAssertEqual(try gen.next(), .returned("early"))
    }

    func testReturnWhenBodyYieldsFromFinallyKeepsItSuspended() throws {
        let gen = Generator<Int, Void, Int> { y in
            do { try y.yield(1) } catch { try y.yield(99) }
            return 0
        }
        _ = try gen.next()
        XCTAssertEqual(try gen.return(5), .yielded(99))
        XCTAssertEqual(gen.state, .suspended)
        XCTAssertEqual(try gen.next(), .returned(0))
    }

    func testYieldAllPassesValuesInputsAndReturnsInnerResult() throws {
        var innerInputs: [Int] = []
        let inner = Generator<Int, Int, String> { y in
            innerInputs.append(try y.yield(1))
            innerInputs.append(try y.yield(2))
            return "inner"
        }
        let outer = Generator<Int, Int, String> { y in
            try y.yield(0)
            let r = try y.yieldAll(inner)
            try y.yield(3)
            return r + "+outer"
        }
        XCTAssertEqual(try outer.next(0), .yielded(0))
        XCTAssertEqual(try outer.next(10), .yielded(1))
        XCTAssertEqual(try outer.next(11), .yielded(2))
        XCTAssertEqual(try outer.next(12), .yielded(3))
        XCTAssertEqual(try outer.next(13), .returned("inner+outer"))
        XCTAssertEqual(innerInputs, [11, 12])
    }

    func testYieldAllForwardsThrowToInner() throws {
        let inner = Generator<Int, Void, Int> { y in
            do { try y.yield(1) } catch let e as TestError { return e.code }
            return 0
        }
        let outer = Generator<Int, Void, Int> { y in try y.yieldAll(inner) * 10 }
        XCTAssertEqual(try outer.next(), .yielded(1))
        XCTAssertEqual(try outer.throw(TestError(code: 4)), .returned(40))
    }

    func testReturnOnOuterClosesDelegatedInner() throws {
        var log: [String] = []
        let inner = Generator<Int, Void, Void> { y in
            defer { log.append("inner defer") }
            try y.yield(1)
            try y.yield(2)
        }
        let outer = Generator<Int, Void, Int> { y in
            defer { log.append("outer defer") }
            try y.yieldAll(inner)
            return 0
        }
        XCTAssertEqual(try outer.next(), .yielded(1))
        XCTAssertEqual(try outer.return(7), .returned(7))
        XCTAssertEqual(log, ["inner defer", "outer defer"])
        XCTAssertEqual(inner.state, .completed)
        XCTAssertThrowsError(try inner.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
    }

    func testYieldAllOfStartedVoidInputGeneratorResumesIt() throws {
        let inner = Generator<Int, Void, Int> { y in try y.yield(1); try y.yield(2); return 3 }
        XCTAssertEqual(try inner.next(), .yielded(1))
        let outer = Generator<Int, Void, Int> { y in try y.yieldAll(inner) }
        XCTAssertEqual(try outer.next(), .yielded(2))
        XCTAssertEqual(try outer.next(), .returned(3))
    }

    func testYieldAllOfStartedGeneratorWithInputThrowsClearError() throws {
        let inner = Generator<Int, Int, Int> { y in try y.yield(1) }
        _ = try inner.next(0)
        let outer = Generator<Int, Int, Int> { y in try y.yieldAll(inner) }
        XCTAssertThrowsError(try outer.next(0)) { XCTAssertEqual($0 as? GeneratorError, .delegateAlreadyStarted) }
        XCTAssertEqual(inner.state, .suspended)
    }

    func testForInIteratesYieldedValues() {
        let gen = Generator<Int, Void, String> { y in
            for i in 1...4 { try y.yield(i * i) }
            return "ignored"
        }
        var seen: [Int] = []
        for x in gen { seen.append(x) }
        XCTAssertEqual(seen, [1, 4, 9, 16])
        XCTAssertEqual(Array(gen), [], "single pass")
    }

    func testSequenceAlgorithmsStopEarly() {
        let naturals = Generator<Int, Void, Void> { y in
            var i = 0
            while true { try y.yield(i); i += 1 }
        }
        XCTAssertEqual(Array(naturals.prefix(5)), [0, 1, 2, 3, 4])
        XCTAssertEqual(naturals.state, .suspended)
    }

    func testNextFromInsideOwnBodyThrowsAlreadyRunning() throws {
        final class Holder { weak var gen: Generator<Int, Void, Void>? }
        let holder = Holder()
        var seenError: Error?
        let gen = Generator<Int, Void, Void> { y in
            do { _ = try holder.gen?.next() } catch { seenError = error }
            try y.yield(1)
        }
        holder.gen = gen
        XCTAssertEqual(try gen.next().yieldedValue, 1)
        XCTAssertEqual(seenError as? GeneratorError, .alreadyRunning)
        XCTAssertNil(try gen.next().yieldedValue)
        XCTAssertEqual(gen.state, .completed)
    }

    func testGeneratorsNestAndEachResumesItsOwnCaller() throws {
        let inner = Generator<Int, Void, Void> { y in
            try y.yield(10)
            try y.yield(20)
        }
        let outer = Generator<Int, Void, Void> { y in
            while case .yielded(let v) = try inner.next() { try y.yield(v + 1) }
        }
        XCTAssertEqual(try yieldedValues(outer), [11, 21])
    }

    func testDeepRecursionWithinStackWorks() throws {
        func depth(_ n: Int, _ y: Yielder<Int, Void>) throws -> Int {
            if n == 0 { try y.yield(0); return 0 }
            return try depth(n - 1, y) + 1
        }
        let gen = Generator<Int, Void, Int>(stackSize: (1 << 20) * sanitizerStackFactor) { y in try depth(2000, y) }
        XCTAssertEqual(try gen.next(), .yielded(0))
        XCTAssertEqual(try gen.next(), .returned(2000))
    }

    func testFloatingPointStateSurvivesSwitches() throws {
        let gen = Generator<Double, Void, Void> { y in
            var x = 1.5
            for _ in 0..<3 {
                let a = x * 2.25
                try y.yield(a)
                x = a + 0.125
            }
        }
        var local = 3.0
        var got: [Double] = []
        while case .yielded(let v) = try gen.next() {
            local = local * 1.5 + v
            got.append(v)
        }
        XCTAssertEqual(got, [3.375, 7.875, 18.0]);
        XCTAssertEqual(local, ((3.0 * 1.5 + 3.375) * 1.5 + 7.875) * 1.5 + 18.0)
    }
}


final class GeneratorUnwindTests: XCTestCase {
    func testBacktraceInsideBodyStopsAtTheCoroutineBase() throws {
        // backtrace() walks the frames by their unwind tables; the trampoline marks its return
        // address undefined, so the walk ends there instead of running off the stack.
        let gen = Generator<[String], Void, Void> { y in try y.yield(Thread.callStackSymbols) }
        let frames = try XCTUnwrap(gen.next().yieldedValue)
        XCTAssertFalse(frames.isEmpty)
        XCTAssertLessThan(frames.count, 40, frames.joined(separator: "\n"))
        XCTAssertFalse(frames.contains { $0.contains("XCTest") }, "the walk must not cross into the resumer's stack")
    }
}
