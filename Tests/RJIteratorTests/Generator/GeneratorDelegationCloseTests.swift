import XCTest

@testable import RJIterator

// return(v), throw(e) and close, checked against ES6 generators and Python's, one test per
// situation (docs/generators.md has the same list as a table). Each comment gives the
// reference behaviour; every test runs on both context backends.
//
// Swift has no `finally` that can yield, so an ES6 `finally { ... }` block that must run on
// `return` is written `catch { ...; throw error }` (or a `defer` for one that does not yield).

final class GeneratorDelegatedCloseTests: XCTestCase {
    // ES6: outer { try { yield* inner } finally { log outer } }, inner { try { yield 1 }
    //      finally { log inner } }: return("v") -> {value: "v", done: true}, log inner, outer.
    // Python: close() of `yield from` closes the inner first: inner, outer.
    func testReturnThroughYieldAllClosesInnerFirstThenOuter() throws {
        try onBothBackendsAndDelegates { adopted in
            var log: [String] = []
            let inner = Delegate<Int, Void, String>(adopted: adopted) { y in
                defer { log.append("inner") }
                try y.yield(1)
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                _ = try inner.yieldAll(from: y)
                log.append("after yieldAll")
                return "outer end"
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("v"))
            XCTAssertEqual(log, ["inner", "outer"])
            // Same Return type: the inner was given return("v") as in ES6.
            XCTAssertEqual(try inner.generator.next(), .returned("v"))
        }
    }

    // ES6 (node): inner { try { yield "1" } finally { log inner cleanup; yield "ic" } return
    //      "inner end" }, outer { try { yield* inner; log after; yield "more"; return "outer end" }
    //      finally { log outer } }: next() -> "1"; return("v") -> {ic, false}; next() ->
    //      {more, false} (the inner's finally ends, its return completion gives {v, done}, and
    //      yield* evaluates to "v": the outer body goes on); next() -> {"outer end", true}.
    func testInnerCleanupYieldSpendsTheReturnAndTheOuterGoesOn() throws {
        try onBothBackendsAndDelegates { adopted in
            var log: [String] = []
            var delegated: String?
            let inner = Delegate<String, Void, String>(adopted: adopted) { y in
                do { try y.yield("1") } catch {
                    log.append("inner cleanup")
                    try y.yield("ic")
                    throw error
                }
                return "inner end"
            }
            let outer = Generator<String, Void, String> { y in
                defer { log.append("outer") }
                delegated = try inner.yieldAll(from: y)
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
            XCTAssertEqual(inner.generator.state, .completed)
            XCTAssertEqual(try outer.next(), .returned("outer end"))
            XCTAssertEqual(log, ["inner cleanup", "after yieldAll", "outer"])
        }
    }

    // Issue 25, first shape. ES6 (node): inner { try { yield 1 } finally { yield 2; return 101 } },
    //      outer { yield* inner; yield 3; return "end" }: next() -> 1; return(54) -> {2, false};
    //      next() -> {3, false} (yield* evaluates to 101); next() -> {"end", true}.
    func testReturnSpentByAnInnerCleanupYieldThenTheInnerReturnsAndTheOuterGoesOn() throws {
        try onBothBackendsAndDelegates { adopted in
            let inner = Delegate<String, Void, Int?>(adopted: adopted) { y in
                do { try y.yield("1") } catch {
                    try y.yield("2")
                    return 101
                }
                return nil
            }
            var delegated: Int??
            let outer = Generator<String, Void, Int?> { y in
                delegated = try inner.yieldAll(from: y)
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
        try onBothBackendsAndDelegates { adopted in
            let inner = Delegate<String, Void, Int?>(adopted: adopted) { y in
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
                let r = try inner.yieldAll(from: y)
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
        try onBothBackendsAndDelegates { adopted in
            for swallows in [false, true] {
                let inner = Delegate<String, Void, Int?>(adopted: adopted) { y in
                    do { try y.yield("1") } catch {
                        try y.yield("2")
                        if !swallows { throw error }
                    }
                    return nil
                }
                let outer = Generator<String, Void, Int?> { y in
                    let r = try inner.yieldAll(from: y)
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
        try onBothBackendsAndDelegates { adopted in
            for secondShape in [false, true] {
                let inner = Delegate<String, Void, String>(adopted: adopted) { y in
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
                let mid = Delegate<String, Void, String>(adopted: adopted) { y in
                    let r = try inner.yieldAll(from: y)
                    try y.yield("mid after \(r)")
                    return "mid end"
                }
                let outer = Generator<String, Void, String> { y in
                    let r = try mid.yieldAll(from: y)
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
        try onBothBackendsAndDelegates { adopted in
            let inner = Delegate<Int, Void, String>(adopted: adopted) { y in
                do { try y.yield(1) } catch { return "innerR" }
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in try inner.yieldAll(from: y) }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("innerR"))
        }
    }

    // ES6: inner's finally throws; outer catches it at yield* and yields "caught":
    //      return("v") -> {value: "caught ierr", done: false}.
    // Python: close() -> the inner's ValueError propagates into the outer at `yield from`.
    func testInnerCleanupErrorPropagatesIntoTheOuterBodyAtYieldAll() throws {
        try onBothBackendsAndDelegates { adopted in
            let inner = Delegate<String, Void, String>(adopted: adopted) { y in
                do { try y.yield("1") } catch { throw TestError(code: 1) }
                return "inner end"
            }
            let outer = Generator<String, Void, String> { y in
                do { _ = try inner.yieldAll(from: y) } catch let e as TestError {
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
        try onBothBackendsAndDelegates { adopted in
            var log: [String] = []
            let inner = Delegate<Int, Void, Void>(adopted: adopted) { y in
                do { try y.yield(1) } catch {
                    log.append("inner")
                    throw TestError(code: 2)
                }
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                try inner.yieldAll(from: y)
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
        try onBothBackendsAndDelegates { adopted in
            var log: [String] = []
            let inner = Delegate<Int, Void, Int>(adopted: adopted) { y in
                defer { log.append("inner") }
                try y.yield(1)
                return 0
            }
            let outer = Generator<Int, Void, String> { y in
                defer { log.append("outer") }
                _ = try inner.yieldAll(from: y)
                return "end"
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .returned("v"))
            XCTAssertEqual(log, ["inner", "outer"])
            XCTAssertThrowsError(try inner.generator.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
        }
    }

    // A throw(e) while the inner runs its cleanup goes to the inner, as any throw during
    // delegation does; the inner catches it here and finishes; the outer return completes.
    func testThrowDuringTheInnerCleanupGoesToTheInner() throws {
        try onBothBackendsAndDelegates { adopted in
            var seen: [Int] = []
            let inner = Delegate<Int, Void, String>(adopted: adopted) { y in
                do { try y.yield(1) } catch {
                    do { try y.yield(2) } catch let e as TestError { seen.append(e.code) }
                    throw error
                }
                return "inner end"
            }
            let outer = Generator<Int, Void, String> { y in try inner.yieldAll(from: y) }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.return("v"), .yielded(2))
            XCTAssertEqual(try outer.throw(TestError(code: 9)), .returned("v"))
            XCTAssertEqual(seen, [9])
        }
    }

    // Release while delegating closes the inner first (Python's close through `yield from`).
    func testReleaseWhileDelegatingClosesInnerThenOuter() throws {
        try onBothBackendsAndDelegates { adopted in
            var log: [String] = []
            let inner = Delegate<Int, Void, Void>(adopted: adopted) { y in
                defer { log.append("inner") }
                try y.yield(1)
                try y.yield(2)
            }
            do {
                let outer = Generator<Int, Void, Void> { y in
                    defer { log.append("outer") }
                    try inner.yieldAll(from: y)
                }
                XCTAssertEqual(try outer.next().yieldedValue, 1)
            }
            XCTAssertEqual(log, ["inner", "outer"])
            XCTAssertEqual(inner.generator.state, .completed)
        }
    }

    // Release while the inner's cleanup would yield: the value has nowhere to go. The outer
    // unwinds; the inner stays suspended in its cleanup (Python's close would raise "generator
    // ignored GeneratorExit" here) and is closed in turn when it is released.
    func testReleaseWhileTheInnerCleanupYieldsUnwindsTheOuterAndLeavesTheInner() throws {
        try onBothBackendsAndDelegates { adopted in
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
        try onBothBackendsAndDelegates { adopted in
            let inner = Delegate<Int, Void, Int>(adopted: adopted) { y in try y.yield(1); return 0 }
            let closer = Generator<Int, Void, String> { y in _ = try inner.yieldAll(from: y); return "" }
            XCTAssertEqual(try closer.next(), .yielded(1))
            XCTAssertEqual(try closer.return("x"), .returned("x"))  // closes inner (other type)
            let outer = Generator<Int, Void, String> { y in
                do { _ = try y.yieldAll(inner.generator) } catch GeneratorError.closed { return "saw closed" }
                return "end"
            }
            XCTAssertEqual(try outer.next(), .returned("saw closed"))
        }
    }
}
