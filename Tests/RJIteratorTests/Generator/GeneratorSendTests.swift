import XCTest

@testable import RJIterator

/// Python's averaging coroutine: yields the running average of what it is sent.
private func averager() -> Generator<Double?, Double, Void> {
    Generator { y in
        var (total, count) = (0.0, 0.0)
        var average: Double? = nil
        while true {
            total += try y.yield(average)
            count += 1
            average = total / count
        }
    }
}

// start(), send(_:), nextValue() and returnedValue: driving a generator by hand, as Python's
// next(gen), gen.send(x) and next(gen, None) do. The Python behaviour is in each comment.
final class GeneratorSendTests: XCTestCase {
    // Python: avg = averager(); next(avg) -> None; avg.send(10) -> 10.0; avg.send(20) -> 15.0.
    func testStartThenSendNeedsNoMadeUpInputAndGivesTheElement() throws {
        let avg = averager()
        XCTAssertEqual(try avg.start(), Double?.none, "the first yield's value: a Double? that is nil")
        XCTAssertEqual(try avg.send(10), 10)
        XCTAssertEqual(try avg.send(20), 15)
    }

    // Python: send(x) with x != None to a just-started generator raises TypeError; the
    // generator is untouched and can be started afterwards.
    func testSendBeforeStartIsRefusedAndLeavesTheGeneratorFresh() throws {
        var ran = false
        let g = Generator<Int, Int, Void> { y in ran = true; _ = try y.yield(1) }
        XCTAssertThrowsError(try g.send(5)) { XCTAssertEqual($0 as? GeneratorError, .notStarted) }
        XCTAssertFalse(ran)
        XCTAssertEqual(g.state, .created)
        XCTAssertEqual(try g.start(), 1)
    }

    func testStartTwiceIsRefusedAndLeavesTheGeneratorSuspended() throws {
        let g = Generator<Int, Int, Void> { y in _ = try y.yield(1); _ = try y.yield(2) }
        XCTAssertEqual(try g.start(), 1)
        XCTAssertThrowsError(try g.start()) { XCTAssertEqual($0 as? GeneratorError, .alreadyStarted) }
        XCTAssertEqual(g.state, .suspended)
        XCTAssertEqual(try g.send(0), 2)
    }

    // Python: send() on a generator that returns raises StopIteration(value), and again on
    // every later send; here GeneratorError.finished, the value in returnedValue.
    func testSendThatEndsTheBodyThrowsFinishedAndKeepsTheReturnValue() throws {
        let g = Generator<Int, Int, String> { y in
            let x = try y.yield(0)
            return "got \(x)"
        }
        XCTAssertNil(g.returnedValue)
        try g.start()
        XCTAssertNil(g.returnedValue, "suspended: no return value yet")
        XCTAssertThrowsError(try g.send(7)) { XCTAssertEqual($0 as? GeneratorError, .finished) }
        XCTAssertEqual(g.returnedValue, "got 7")
        XCTAssertThrowsError(try g.send(8)) { XCTAssertEqual($0 as? GeneratorError, .finished) }
        XCTAssertThrowsError(try g.start()) { XCTAssertEqual($0 as? GeneratorError, .finished) }
    }

    func testStartOfABodyThatReturnsAtOnceThrowsFinished() throws {
        let g = Generator<Int, Int, Int> { _ in 42 }
        XCTAssertThrowsError(try g.start()) { XCTAssertEqual($0 as? GeneratorError, .finished) }
        XCTAssertEqual(g.returnedValue, 42)
    }

    // The body's own error comes out of send, and again later, as from next.
    func testSendRethrowsTheBodysErrorEveryTime() throws {
        let g = Generator<Int, Int, Void> { y in
            _ = try y.yield(0)
            throw TestError(code: 3)
        }
        try g.start()
        XCTAssertThrowsError(try g.send(1)) { XCTAssertEqual($0 as? TestError, TestError(code: 3)) }
        XCTAssertThrowsError(try g.send(1)) { XCTAssertEqual($0 as? TestError, TestError(code: 3)) }
        XCTAssertNil(g.returnedValue)
    }

    // Python: next(gen, None) gives None at the end, every time.
    func testNextValuePullsOneValueAndGivesNilAtTheEnd() throws {
        let g = Generator<Int, Void, String> { y in try y.yield(1); try y.yield(2); return "end" }
        XCTAssertEqual(try g.nextValue(), 1)
        XCTAssertEqual(try g.nextValue(), 2)
        XCTAssertNil(try g.nextValue())
        XCTAssertNil(try g.nextValue())
        XCTAssertEqual(g.returnedValue, "end")
    }

    func testSendFromInsideTheBodyItselfIsAlreadyRunning() throws {
        var me: Generator<Int, Int, Void>?
        var seen: GeneratorError?
        let g = Generator<Int, Int, Void> { y in
            do { _ = try me!.send(1) } catch let e as GeneratorError { seen = e }
            _ = try y.yield(0)
        }
        me = g
        try g.start()
        XCTAssertEqual(seen, .alreadyRunning)
        me = nil
    }
}

// close(): Python's gen.close(), for a generator of any Return type.
final class GeneratorCloseTests: XCTestCase {
    // Python: close() raises GeneratorExit at the yield; finally runs; later next() raises
    // StopIteration. Here later calls throw GeneratorError.closed.
    func testCloseRunsCleanupsAndCompletesWithoutAValue() throws {
        var log: [String] = []
        let g = Generator<Int, Void, Int> { y in
            defer { log.append("defer") }
            try y.yield(1)
            try y.yield(2)
            return 3
        }
        XCTAssertEqual(try g.nextValue(), 1)
        try g.close()
        XCTAssertEqual(log, ["defer"])
        XCTAssertEqual(g.state, .completed)
        XCTAssertNil(g.returnedValue)
        XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
        try g.close()  // Python: close() on a closed generator does nothing
    }

    // Python: close() of a generator that never started marks it closed; the body never runs.
    func testCloseOfAFreshGeneratorNeverRunsTheBody() throws {
        var ran = false
        let g = Generator<Int, Void, Void> { y in ran = true; try y.yield(1) }
        try g.close()
        XCTAssertFalse(ran)
        XCTAssertEqual(g.state, .completed)
        XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
    }

    // Python: a generator that yields in its finally during close() -> RuntimeError("generator
    // ignored GeneratorExit"), and it stays suspended at that yield.
    func testCloseOfABodyThatYieldsInItsCleanupThrowsIgnoredCloseAndStaysSuspended() throws {
        let g = Generator<Int, Void, Void> { y in
            do { try y.yield(1) } catch {
                try y.yield(99)
                throw error
            }
        }
        XCTAssertEqual(try g.nextValue(), 1)
        XCTAssertThrowsError(try g.close()) { XCTAssertEqual($0 as? GeneratorError, .ignoredClose) }
        XCTAssertEqual(g.state, .suspended)
        try g.close()  // the cleanup's yield throws the exit signal again: the rethrow ends it
        XCTAssertEqual(g.state, .completed)
    }

    // Python: an exception raised by the body while closing propagates out of close().
    func testCloseRethrowsAnErrorOfTheCleanup() throws {
        let g = Generator<Int, Void, Void> { y in
            do { try y.yield(1) } catch { throw TestError(code: 8) }
        }
        _ = try g.nextValue()
        XCTAssertThrowsError(try g.close()) { XCTAssertEqual($0 as? TestError, TestError(code: 8)) }
        XCTAssertEqual(g.state, .completed)
    }

    // Python: close() on a generator suspended in `yield from` closes the inner one first.
    func testCloseWhileDelegatingClosesTheInnerFirst() throws {
        var log: [String] = []
        let inner = Generator<Int, Void, String> { y in
            defer { log.append("inner") }
            try y.yield(1)
            return "x"
        }
        let outer = Generator<Int, Void, Int> { y in
            defer { log.append("outer") }
            _ = try y.yieldAll(inner)
            return 0
        }
        XCTAssertEqual(try outer.nextValue(), 1)
        try outer.close()
        XCTAssertEqual(log, ["inner", "outer"])
        XCTAssertEqual(inner.state, .completed)
    }
}
