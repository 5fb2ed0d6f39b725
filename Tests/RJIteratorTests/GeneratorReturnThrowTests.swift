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

final class GeneratorDelegatedCloseTests: XCTestCase {
    // ES6: outer { try { yield* inner } finally { log outer } }, inner { try { yield 1 }
    //      finally { log inner } }: return("v") -> {value: "v", done: true}, log inner, outer.
    // Python: close() of `yield from` closes the inner first: inner, outer.
    func testReturnThroughYieldAllClosesInnerFirstThenOuter() throws {
        try onBothBackends {
            var log: [String] = []
            let inner = Generator<Int, Void, String> { y in
                defer { log.append("inner") }
                try y.yield(1)
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                _ = try y.yieldAll(inner)
                log.append("after yieldAll")
                return "outer end"
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("v"))
            XCTAssertEqual(log, ["inner", "outer"])
            // Same Return type: the inner was given return("v") as in ES6.
            XCTAssertEqual(try inner.next(), .returned("v"))
        }
    }

    // ES6 (node): inner { try { yield "1" } finally { log inner cleanup; yield "ic" } return
    //      "inner end" }, outer { try { yield* inner; log after; yield "more"; return "outer end" }
    //      finally { log outer } }: next() -> "1"; return("v") -> {ic, false}; next() ->
    //      {more, false} (the inner's finally ends, its return completion gives {v, done}, and
    //      yield* evaluates to "v": the outer body goes on); next() -> {"outer end", true}.
    func testInnerCleanupYieldSpendsTheReturnAndTheOuterGoesOn() throws {
        try onBothBackends {
            var log: [String] = []
            var delegated: String?
            let inner = Generator<String, Void, String> { y in
                do { try y.yield("1") } catch {
                    log.append("inner cleanup")
                    try y.yield("ic")
                    throw error
                }
                return "inner end"
            }
            let outer = Generator<String, Void, String> { y in
                defer { log.append("outer") }
                delegated = try y.yieldAll(inner)
                log.append("after yieldAll")
                try y.yield("more")
                return "outer end"
            }
            XCTAssertEqual(try outer.next(), .yielded("1"))
            XCTAssertEqual(try outer.return("v"), .yielded("ic"))
            XCTAssertEqual(log, ["inner cleanup"])
            XCTAssertEqual(try outer.next(), .yielded("more"))
            XCTAssertEqual(delegated, "v", "yieldAll evaluates to what the inner returned: the return's value")
            XCTAssertEqual(log, ["inner cleanup", "after yieldAll"])
            XCTAssertEqual(inner.state, .completed)
            XCTAssertEqual(try outer.next(), .returned("outer end"))
            XCTAssertEqual(log, ["inner cleanup", "after yieldAll", "outer"])
        }
    }

    // Issue 25, first shape. ES6 (node): inner { try { yield 1 } finally { yield 2; return 101 } },
    //      outer { yield* inner; yield 3; return "end" }: next() -> 1; return(54) -> {2, false};
    //      next() -> {3, false} (yield* evaluates to 101); next() -> {"end", true}.
    func testReturnSpentByAnInnerCleanupYieldThenTheInnerReturnsAndTheOuterGoesOn() throws {
        try onBothBackends {
            let inner = Generator<String, Void, Int?> { y in
                do { try y.yield("1") } catch {
                    try y.yield("2")
                    return 101
                }
                return nil
            }
            var delegated: Int??
            let outer = Generator<String, Void, Int?> { y in
                delegated = try y.yieldAll(inner)
                try y.yield("3")
                return nil
            }
            XCTAssertEqual(try outer.next(), .yielded("1"))
            XCTAssertEqual(try outer.return(54), .yielded("2"))
            XCTAssertEqual(try outer.next(), .yielded("3"))
            XCTAssertEqual(delegated, .some(101))
            XCTAssertEqual(try outer.next(), .returned(nil))
        }
    }

    // Issue 25, second shape. ES6 (node): inner { try { try { yield 1 } finally { yield 2 } }
    //      catch { return 102 } }, outer { r = yield* inner; yield "after " + r }: next() -> 1;
    //      return(51) -> {2, false}; throw(E) -> {"after 102", false}; next() -> {"end", true}.
    func testThrowAfterASpentReturnGoesToTheInnerWhichReturnsAndTheOuterGoesOn() throws {
        try onBothBackends {
            let inner = Generator<String, Void, Int?> { y in
                do {
                    do { try y.yield("1") } catch {
                        try y.yield("2")
                        throw error
                    }
                } catch {
                    return 102
                }
                return nil
            }
            let outer = Generator<String, Void, Int?> { y in
                let r = try y.yieldAll(inner)
                try y.yield("after \(r.map(String.init) ?? "nil")")
                return nil
            }
            XCTAssertEqual(try outer.next(), .yielded("1"))
            XCTAssertEqual(try outer.return(51), .yielded("2"))
            XCTAssertEqual(try outer.throw(TestError(code: 7)), .yielded("after 102"))
            XCTAssertEqual(try outer.next(), .returned(nil))
        }
    }

    // Issue 25, third shape: the inner's cleanup yields and then lets the return go on
    // (ES6's finally without a return of its own). ES6 (node): inner { try { yield 1 } finally
    //      { yield 2 } }, outer { r = yield* inner; yield "after " + r }: next() -> 1;
    //      return(53) -> {2, false}; next() -> {"after 53", false}; next() -> {"end", true}.
    // Written here with a cleanup that rethrows the exit signal, which carries 53; a cleanup
    // that swallows it instead and falls off the end returns its own value (nil), and the
    // outer goes on with that.
    func testInnerCleanupThatYieldsThenFallsOffItsEndLetsTheOuterGoOn() throws {
        try onBothBackends {
            for swallows in [false, true] {
                let inner = Generator<String, Void, Int?> { y in
                    do { try y.yield("1") } catch {
                        try y.yield("2")
                        if !swallows { throw error }
                    }
                    return nil
                }
                let outer = Generator<String, Void, Int?> { y in
                    let r = try y.yieldAll(inner)
                    try y.yield("after \(r.map(String.init) ?? "nil")")
                    return nil
                }
                XCTAssertEqual(try outer.next(), .yielded("1"))
                XCTAssertEqual(try outer.return(53), .yielded("2"))
                XCTAssertEqual(try outer.next(), .yielded(swallows ? "after nil" : "after 53"))
                XCTAssertEqual(try outer.next(), .returned(nil))
            }
        }
    }

    // The first two shapes through two levels of delegation. ES6 (node): mid { r = yield*
    //      inner; yield "mid after " + r; return "mid end" }, outer { r = yield* mid; yield
    //      "outer after " + r; return "end" }. First shape: next() -> 1; return(54) -> {2,
    //      false}; next() -> {"mid after 101", false}; next() -> {"outer after mid end",
    //      false}; next() -> {"end", true}. Second shape: the same with return(51), throw(E)
    //      -> {"mid after 102", false}.
    func testSpentReturnThroughTwoLevelsOfDelegation() throws {
        try onBothBackends {
            for secondShape in [false, true] {
                let inner = Generator<String, Void, String> { y in
                    if secondShape {
                        do {
                            do { try y.yield("1") } catch {
                                try y.yield("2")
                                throw error
                            }
                        } catch {
                            return "102"
                        }
                    } else {
                        do { try y.yield("1") } catch {
                            try y.yield("2")
                            return "101"
                        }
                    }
                    return "inner end"
                }
                let mid = Generator<String, Void, String> { y in
                    let r = try y.yieldAll(inner)
                    try y.yield("mid after \(r)")
                    return "mid end"
                }
                let outer = Generator<String, Void, String> { y in
                    let r = try y.yieldAll(mid)
                    try y.yield("outer after \(r)")
                    return "end"
                }
                XCTAssertEqual(try outer.next(), .yielded("1"))
                if secondShape {
                    XCTAssertEqual(try outer.return("51"), .yielded("2"))
                    XCTAssertEqual(try outer.throw(TestError(code: 7)), .yielded("mid after 102"))
                } else {
                    XCTAssertEqual(try outer.return("54"), .yielded("2"))
                    XCTAssertEqual(try outer.next(), .yielded("mid after 101"))
                }
                XCTAssertEqual(try outer.next(), .yielded("outer after mid end"))
                XCTAssertEqual(try outer.next(), .returned("end"))
            }
        }
    }

    // ES6: inner { try { yield 1 } finally { return "innerR" } }: outer.return("v") ->
    //      {value: "innerR", done: true}: the outer returns with what the inner's return gave.
    func testInnerCleanupReturnValueBecomesTheOuterResult() throws {
        try onBothBackends {
            let inner = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch { return "innerR" }
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in try y.yieldAll(inner) }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("innerR"))
        }
    }

    // ES6: inner's finally throws; outer catches it at yield* and yields "caught":
    //      return("v") -> {value: "caught ierr", done: false}.
    // Python: close() -> the inner's ValueError propagates into the outer at `yield from`.
    func testInnerCleanupErrorPropagatesIntoTheOuterBodyAtYieldAll() throws {
        try onBothBackends {
            let inner = Generator<String, Void, String> { y in
                do { try y.yield("1") } catch { throw TestError(code: 1) }
                return "inner end"
            }
            let outer = Generator<String, Void, String> { y in
                do { _ = try y.yieldAll(inner) } catch let e as TestError {
                    try y.yield("caught \(e.code)")
                }
                return "outer end"
            }
            XCTAssertEqual(try outer.next(), .yielded("1"))
            XCTAssertEqual(try outer.return("v"), .yielded("caught 1"))
            XCTAssertEqual(try outer.next(), .returned("outer end"))
        }
    }

    // Python: close() raises the inner's error out of close when the outer does not catch it;
    // ES6 likewise throws it out of return(). Cleanup order still inner, then outer.
    func testInnerCleanupErrorComesOutOfTheOuterReturn() throws {
        try onBothBackends {
            var log: [String] = []
            let inner = Generator<Int, Void, Void> { y in
                do { try y.yield(1) } catch {
                    log.append("inner")
                    throw TestError(code: 2)
                }
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                try y.yieldAll(inner)
                return "end"
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertThrowsError(try outer.return("v")) { XCTAssertEqual($0 as? TestError, TestError(code: 2)) }
            XCTAssertEqual(log, ["inner", "outer"])
            XCTAssertEqual(outer.state, .completed)
        }
    }

    // Different return types: there is no way to hand the inner the outer's value, so the
    // inner is closed (Python's close), and the outer completes with its own value.
    func testReturnThroughYieldAllWithOtherReturnTypeClosesTheInner() throws {
        try onBothBackends {
            var log: [String] = []
            let inner = Generator<Int, Void, Int> { y in
                defer { log.append("inner") }
                try y.yield(1)
                return 0
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                _ = try y.yieldAll(inner)
                return "end"
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("v"))
            XCTAssertEqual(log, ["inner", "outer"])
            XCTAssertThrowsError(try inner.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
        }
    }

    // A throw(e) while the inner runs its cleanup goes to the inner, as any throw during
    // delegation does; the inner catches it here and finishes; the outer return completes.
    func testThrowDuringTheInnerCleanupGoesToTheInner() throws {
        try onBothBackends {
            var seen: [Int] = []
            let inner = Generator<Int, Void, String> { y in
                do { try y.yield(1) } catch {
                    do { try y.yield(2) } catch let e as TestError { seen.append(e.code) }
                    throw error
                }
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in try y.yieldAll(inner) }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .yielded(2))
            XCTAssertEqual(try outer.throw(TestError(code: 9)), .returned("v"))
            XCTAssertEqual(seen, [9])
        }
    }

    // Release while delegating closes the inner first (Python's close through `yield from`).
    func testReleaseWhileDelegatingClosesInnerThenOuter() throws {
        try onBothBackends {
            var log: [String] = []
            let inner = Generator<Int, Void, Void> { y in
                defer { log.append("inner") }
                try y.yield(1)
                try y.yield(2)
            }
            do {
                let outer = Generator<Int, Void, Void> { y in
                    defer { log.append("outer") }
                    try y.yieldAll(inner)
                }
                XCTAssertEqual(try outer.next().yieldedValue, 1)
            }
            XCTAssertEqual(log, ["inner", "outer"])
            XCTAssertEqual(inner.state, .completed)
        }
    }

    // Release while the inner's cleanup would yield: the value has nowhere to go. The outer
    // unwinds; the inner stays suspended in its cleanup (Python's close would raise "generator
    // ignored GeneratorExit" here) and is closed in turn when it is released.
    func testReleaseWhileTheInnerCleanupYieldsUnwindsTheOuterAndLeavesTheInner() throws {
        try onBothBackends {
            var log: [String] = []
            var inner: Generator<Int, Void, Void>? = Generator<Int, Void, Void> { y in
                defer { log.append("inner defer") }
                do { try y.yield(1) } catch {
                    try y.yield(2)
                    throw error
                }
            }
            do {
                let delegate = inner!
                let outer = Generator<Int, Void, Void> { y in
                    defer { log.append("outer") }
                    try y.yieldAll(delegate)
                }
                XCTAssertEqual(try outer.next().yieldedValue, 1)
            }
            XCTAssertEqual(log, ["outer"])
            XCTAssertEqual(inner?.state, .suspended)
            inner = nil
            XCTAssertEqual(log, ["outer", "inner defer"])
        }
    }

    // A delegated inner completed by someone else's close has no value: yieldAll throws
    // GeneratorError.closed into the outer body (not a silent close of the outer).
    func testYieldAllOfAClosedGeneratorThrowsClosed() throws {
        try onBothBackends {
            let inner = Generator<Int, Void, Int> { y in try y.yield(1); return 0 }
            let closer = Generator<Int, Void, String> { y in _ = try y.yieldAll(inner); return "" }
            XCTAssertEqual(try closer.next(), .yielded(1))
            XCTAssertEqual(try closer.return("x"), .returned("x"))  // closes inner (other type)
            let outer = Generator<Int, Void, String> { y in
                do { _ = try y.yieldAll(inner) } catch GeneratorError.closed { return "saw closed" }
                return "end"
            }
            XCTAssertEqual(try outer.next(), .returned("saw closed"))
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

final class GeneratorConsumptionTests: XCTestCase {
    func testForEachVisitsEveryValueAndGivesTheReturnValue() throws {
        let g = Generator<Int, Void, String> { y in
            for i in 1...3 { try y.yield(i) }
            return "done"
        }
        var seen: [Int] = []
        let result = try g.forEach { seen.append($0) }
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(result, "done")
    }

    func testForEachRethrowsTheBodyError() {
        let g = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 11)
        }
        var seen: [Int] = []
        XCTAssertThrowsError(try g.forEach { seen.append($0) }) { XCTAssertEqual($0 as? TestError, TestError(code: 11)) }
        XCTAssertEqual(seen, [1])
    }

    func testForEachClosureErrorLeavesTheGeneratorSuspended() throws {
        let g = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
        XCTAssertThrowsError(try g.forEach { if $0 == 2 { throw TestError(code: 12) } })
        XCTAssertEqual(g.state, .suspended)
        XCTAssertEqual(try g.next().yieldedValue, 3)
    }

    func testCollectGathersEveryValue() throws {
        let g = Generator<Int, Void, Void> { y in for i in 1...4 { try y.yield(i * i) } }
        XCTAssertEqual(try g.collect(), [1, 4, 9, 16])
    }

    func testCollectRethrowsTheBodyError() {
        let g = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 13)
        }
        XCTAssertThrowsError(try g.collect()) { XCTAssertEqual($0 as? TestError, TestError(code: 13)) }
    }
}
