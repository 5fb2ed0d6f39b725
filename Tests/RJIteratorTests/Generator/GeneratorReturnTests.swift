import XCTest

@testable import RJIterator

// return(v), throw(e) and close, checked against ES6 generators and Python's, one test per
// situation (docs/generators.md has the same list as a table). Each comment gives the
// reference behaviour; every test runs on both context backends.
//
// Swift has no `finally` that can yield, so an ES6 `finally { ... }` block that must run on
// `return` is written `catch { ...; throw error }` (or a `defer` for one that does not yield).

/// ES6's `function* () { try { yield 1 } finally { yield 2 } return "end" }`.
private func yieldOneThenCleanupYieldingTwo() -> Generator<Int, Void, String> {
    Generator { y in
        do { try y.yield(1) } catch {
            try y.yield(2)
            throw error
        }
        return "end"
    }
}

final class GeneratorReturnTests: XCTestCase {
    // ES6: it.next(); it.return("cancel") -> {value: "cleanup", done: false};
    //      it.next() -> {value: "cancel", done: true}. Python has no return(v).
    func testReturnWhoseCleanupYieldsCompletesWithTheReturnValue() throws {
        try onBothBackends {
            let g = Generator<String, Void, String> { y in
                do { try y.yield("work") } catch {
                    try y.yield("cleanup")
                    throw error
                }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded("work"))
            XCTAssertEqual(try g.return("cancel"), .yielded("cleanup"))
            XCTAssertEqual(g.state, .suspended)
            XCTAssertEqual(try g.next(), .returned("cancel"))
            XCTAssertEqual(try g.next(), .returned("cancel"), "the outcome is kept")
        }
    }

    // ES6: try { try { yield 1 } finally { yield "inner" } } finally { yield "outer" }
    //      return("v") -> "inner", next() -> "outer", next() -> {value: "v", done: true}.
    func testNestedCleanupsThatEachYieldStillCompleteWithTheReturnValue() throws {
        try onBothBackends {
            var log: [String] = []
            let g = Generator<String, Void, String> { y in
                defer { log.append("defer") }
                do {
                    do { try y.yield("1") } catch {
                        try y.yield("inner")
                        throw error
                    }
                } catch {
                    try y.yield("outer")
                    throw error
                }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded("1"))
            XCTAssertEqual(try g.return("v"), .yielded("inner"))
            XCTAssertEqual(try g.next(), .yielded("outer"))
            XCTAssertEqual(log, [])
            XCTAssertEqual(try g.next(), .returned("v"))
            XCTAssertEqual(log, ["defer"])
        }
    }

    // test262 return/try-finally-*: try { yield 1 } finally { got = yield 2 }
    //      return("v") -> 2; next("x") -> {value: "v", done: true}, and got == "x".
    func testInputGivenDuringTheCleanupReachesThePendingYield() throws {
        try onBothBackends {
            var got: String?
            let g = Generator<Int, String, String> { y in
                do { try y.yield(1) } catch {
                    got = try y.yield(2)
                    throw error
                }
                return "end"
            }
            XCTAssertEqual(try g.next("ignored"), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(2))
            XCTAssertEqual(try g.next("x"), .returned("v"))
            XCTAssertEqual(got, "x")
        }
    }

    // ES6: try { yield 1 } finally { yield* cleanup() }: cleanup's values come out of the
    //      return, then {value: "v", done: true}.
    func testCleanupThatDelegatesWithYieldAllDuringReturn() throws {
        try onBothBackends {
            let g = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch {
                    let cleanup = Generator<Int, Void, Void> { c in
                        try c.yield(10)
                        try c.yield(20)
                    }
                    try y.yieldAll(cleanup)
                    throw error
                }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(10))
            XCTAssertEqual(try g.next(), .yielded(20))
            XCTAssertEqual(try g.next(), .returned("v"))
        }
    }

    // ES6: try { yield 1 } finally { return "r" }: return("v") -> {value: "r", done: true}.
    func testCleanupThatReturnsItsOwnValueOverridesTheReturnValue() throws {
        try onBothBackends {
            let g = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch {
                    try y.yield(2)
                    return "r"
                }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(2))
            XCTAssertEqual(try g.next(), .returned("r"))
            XCTAssertEqual(try g.next(), .returned("r"))
        }
    }

    // ES6: try { yield 1 } finally { yield 2; throw boom }: return("v") -> 2; next() throws
    //      boom. (A later next() gives {done: true} in ES6; here it throws boom again: a
    //      completed generator keeps its outcome.)
    func testCleanupThatThrowsMakesThatStepThrow() throws {
        try onBothBackends {
            let g = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch {
                    try y.yield(2)
                    throw TestError(code: 5)
                }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(2))
            XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 5)) }
            XCTAssertEqual(g.state, .completed)
            XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 5)) }
        }
    }

    // ES6: a cleanup that throws at once: return("v") itself throws.
    func testCleanupThatThrowsAtOnceMakesReturnThrow() throws {
        try onBothBackends {
            let g = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch { throw TestError(code: 6) }
                return "end"
            }
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertThrowsError(try g.return("v")) { XCTAssertEqual($0 as? TestError, TestError(code: 6)) }
            XCTAssertEqual(g.state, .completed)
        }
    }

    // ES6: try { yield 1 } finally { yield 2 }: return("v") -> 2; return("w") ->
    //      {value: "w", done: true}: the second return replaces the first.
    func testSecondReturnDuringTheCleanupReplacesTheFirst() throws {
        try onBothBackends {
            let g = yieldOneThenCleanupYieldingTwo()
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(2))
            XCTAssertEqual(try g.return("w"), .returned("w"))
        }
    }

    // ES6: try { yield 1 } finally { yield 2 }: return("v") -> 2; throw(e) throws e: the
    //      error replaces the pending return.
    func testThrowDuringTheCleanupReplacesThePendingReturn() throws {
        try onBothBackends {
            let g = yieldOneThenCleanupYieldingTwo()
            XCTAssertEqual(try g.next(), .yielded(1))
            XCTAssertEqual(try g.return("v"), .yielded(2))
            XCTAssertThrowsError(try g.throw(TestError(code: 8))) { XCTAssertEqual($0 as? TestError, TestError(code: 8)) }
            XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 8)) }
        }
    }

    // Release of a generator suspended in a return's cleanup closes it again: the cleanup's
    // yield throws the exit signal, the stack unwinds, its defers run, nothing is printed.
    // (Python: del of a generator runs close(); no ES6 counterpart.)
    func testReleaseDuringAReturnCleanupUnwindsTheBody() throws {
        try onBothBackends {
            let liveBefore = liveBodies
            var log: [String] = []
            do {
                let g = Generator<Int, Void, String> { y in
                    defer { log.append("defer") }
                    do { try y.yield(1) } catch {
                        try y.yield(2)
                        log.append("not reached")
                        throw error
                    }
                    return "end"
                }
                XCTAssertEqual(try g.next(), .yielded(1))
                XCTAssertEqual(try g.return("v"), .yielded(2))
            }
            XCTAssertEqual(log, ["defer"])
            XCTAssertEqual(liveBodies, liveBefore)
        }
    }
}

final class GeneratorCompletedAndUnstartedTests: XCTestCase {
    // ES6: it.throw(e) on a completed generator throws e; Python: gen.throw(e) raises e.
    // Both: the generator stays completed; here next() keeps reporting the kept outcome.
    func testThrowOnACompletedGeneratorThrowsTheErrorAndKeepsTheOutcome() throws {
        try onBothBackends {
            let g = Generator<Int, Void, Int> { y in try y.yield(1); return 5 }
            _ = try g.next()
            XCTAssertEqual(try g.next(), .returned(5))
            XCTAssertThrowsError(try g.throw(TestError(code: 3))) { XCTAssertEqual($0 as? TestError, TestError(code: 3)) }
            XCTAssertEqual(g.state, .completed)
            XCTAssertEqual(try g.next(), .returned(5))
        }
    }

    // ES6: it.return(9) on a completed generator -> {value: 9, done: true}. Here next()
    // still reports the kept outcome afterwards (ES6: {done: true}).
    func testReturnOnACompletedGeneratorGivesTheValueAndKeepsTheOutcome() throws {
        try onBothBackends {
            let g = Generator<Int, Void, Int> { _ in 5 }
            XCTAssertEqual(try g.next(), .returned(5))
            XCTAssertEqual(try g.return(9), .returned(9))
            XCTAssertEqual(try g.next(), .returned(5))
        }
    }

    // ES6: return(v) on a generator whose body threw -> {value: v, done: true}.
    func testReturnOnAGeneratorThatThrewGivesTheValueAndNextStillThrows() throws {
        try onBothBackends {
            let g = Generator<Int, Void, Int> { _ in throw TestError(code: 4) }
            XCTAssertThrowsError(try g.next())
            XCTAssertEqual(try g.return(9), .returned(9))
            XCTAssertThrowsError(try g.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 4)) }
        }
    }

    // ES6 and Python: throw(e) on a never-started generator throws e without running the
    // body, and the generator is completed.
    func testThrowOnAnUnstartedGeneratorThrowsWithoutRunningTheBody() throws {
        try onBothBackends {
            var ran = false
            let g = Generator<Int, Void, Void> { _ in ran = true }
            XCTAssertThrowsError(try g.throw(TestError(code: 2))) { XCTAssertEqual($0 as? TestError, TestError(code: 2)) }
            XCTAssertFalse(ran)
            XCTAssertEqual(g.state, .completed)
        }
    }

    // ES6: return(4) on a never-started generator -> {value: 4, done: true}, body never runs.
    func testReturnOnAnUnstartedGeneratorGivesTheValueWithoutRunningTheBody() throws {
        try onBothBackends {
            var ran = false
            let g = Generator<Int, Void, Int> { _ in ran = true; return 1 }
            XCTAssertEqual(try g.return(4), .returned(4))
            XCTAssertFalse(ran)
            XCTAssertEqual(try g.return(7), .returned(7))
            XCTAssertEqual(try g.next(), .returned(4))
        }
    }
}
