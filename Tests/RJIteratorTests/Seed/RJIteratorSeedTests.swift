import XCTest

@testable import RJIterator

private func talk(_ name: Any?) -> Any? {
    var cmd = ""
    repeat {
        rj_yield("Hello \(name ?? ""), How are you?")
        rj_yield("Today is Friday")
        rj_yield("So yestday is Thursday")
        rj_yield("And tomorrow is Saturday")
        cmd = rj_yield("Over") as? String ?? ""
    } while cmd == "again"
    return "==talk done=="
}

private func count_1_3(_: Any?) -> Any? {
    rj_yield(1)
    rj_yield(2)
    return 3
}
private func count_4_6(_: Any?) -> Any? {
    rj_yield(4)
    rj_yield(5)
    return 6
}
private func count_7_9(_: Any?) -> Any? {
    rj_yield(7)
    rj_yield(8)
    return 9
}
private func count(_: Any?) -> Any? {
    rj_yield(RJIterator(withFunc: count_1_3, arg: nil))
    rj_yield(RJIterator(withFunc: count_4_6, arg: nil))
    rj_yield(RJIterator(withFunc: count_7_9, arg: nil))
    return nil
}

final class RJIteratorSeedTests: XCTestCase {
    private func values(_ it: RJIterator, _ n: Int) -> [String] {
        (0..<n).map { _ in
            let r = it.next()
            return "\(r.value ?? "nil")|\(r.done)"
        }
    }

    func testTalkExample() {
        let it = RJIterator(withFunc: talk, arg: "乌卡卡")
        XCTAssertEqual(values(it, 7), [
            "Hello 乌卡卡, How are you?|false",
            "Today is Friday|false",
            "So yestday is Thursday|false",
            "And tomorrow is Saturday|false",
            "Over|false",
            "==talk done==|true",
            "==talk done==|true",
        ])
    }

    func testTalkAgainRestartsTheTalk() {
        let it = RJIterator(withFunc: talk, arg: "乌卡卡")
        _ = values(it, 5)
        let r = it.next("again")
        XCTAssertEqual(r.value as? String, "Hello 乌卡卡, How are you?")
        XCTAssertFalse(r.done)
        _ = values(it, 4)
        XCTAssertEqual(values(it, 1), ["==talk done==|true"])
    }

    func testNestedCountExample() {
        let it = RJIterator(withFunc: count, arg: nil)
        var got: [Int] = []
        var r = it.next()
        while !r.done {
            got.append(r.value as! Int)
            r = it.next()
        }
        XCTAssertEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9])
        XCTAssertNil(r.value)
    }

    func testPlainNextReturnsYieldedValueAndNextXReturnsX() {
        var seen: [String] = []
        let it = RJIterator {
            seen.append("\(rj_yield("a") ?? "nil")")
            seen.append("\(rj_yield("b") ?? "nil")")
            seen.append("\(rj_yield("c") ?? "nil")")
            return "r"
        }
        XCTAssertEqual(it.next("ignored").value as? String, "a")
        XCTAssertEqual(it.next().value as? String, "b")
        XCTAssertEqual(it.next("x").value as? String, "c")
        let last = it.next(nil)
        XCTAssertEqual(last.value as? String, "r")
        XCTAssertTrue(last.done)
        XCTAssertEqual(seen, ["a", "x", "nil"])
    }

    func testDelegationReturnsResumeValue() {
        var delegated: Any?
        let it = RJIterator {
            delegated = rj_yield(RJIterator { rj_yield(1); return 2 })
            return nil
        }
        XCTAssertEqual(it.next().value as? Int, 1)
        XCTAssertEqual(it.next().value as? Int, 2)
        XCTAssertTrue(it.next("after").done)
        XCTAssertEqual(delegated as? String, "after")
    }

    func testResumingFromInsideOwnBodyGivesErrorResult() {
        final class Holder { weak var it: RJIterator? }
        let holder = Holder()
        var inner: RJResult?
        let it = RJIterator {
            inner = holder.it?.next()
            return nil
        }
        holder.it = it
        XCTAssertTrue(it.next().done)
        XCTAssertEqual(inner?.error as? GeneratorError, .alreadyRunning)
    }

    // Values crossing between `next` and `rj_yield` are owned exactly once: each test counts
    // live objects, so a leak or a second release shows (ASan also sees the latter).

    func testIgnoredFirstInputIsReleased() {
        weak var dropped: Tracked?
        let it = RJIterator { rj_yield(1); return nil }
        do {
            let first = Tracked()
            dropped = first
            XCTAssertEqual(it.next(first).value as? Int, 1)
        }
        XCTAssertNil(dropped, "the ignored value of the first next(x) was kept")
        // Every test runs its iterators to the end: a suspended `RJIterator` that is released
        // is abandoned by design, and LeakSanitizer would report what its stack holds.
        XCTAssertTrue(it.next().done)
    }

    func testInputToFinishedIteratorIsReleased() {
        weak var dropped: Tracked?
        let it = RJIterator { "end" }
        XCTAssertTrue(it.next().done)
        do {
            let late = Tracked()
            dropped = late
            let r = it.next(late)
            XCTAssertTrue(r.done)
            XCTAssertEqual(r.value as? String, "end")
        }
        XCTAssertNil(dropped)
    }

    func testInputTakenByTheBodyLivesAsLongAsTheBodyKeepsIt() {
        weak var given: Tracked?
        var kept: Any?
        let it = RJIterator {
            kept = rj_yield(0)
            rj_yield(1)
            kept = nil
            rj_yield(2)
            return nil
        }
        it.next()
        do {
            let value = Tracked()
            given = value
            XCTAssertEqual(it.next(value).value as? Int, 1)
        }
        XCTAssertNotNil(given, "the body's value was released under it")
        XCTAssertTrue(kept is Tracked)
        XCTAssertEqual(it.next().value as? Int, 2)
        XCTAssertNil(given)
        XCTAssertTrue(it.next().done)
    }

    func testYieldedValueIsSharedByTheResultAndTheBody() {
        weak var yielded: Tracked?
        var returned: Any?
        let it = RJIterator {
            let value = Tracked()
            yielded = value
            returned = rj_yield(value)  // next() gives the same value back
            return nil
        }
        do {
            let r = it.next()
            XCTAssertTrue(r.value as AnyObject === yielded)
        }
        XCTAssertNotNil(yielded, "the result's copy was the only one")
        XCTAssertTrue(it.next().done)
        XCTAssertTrue(returned as AnyObject === yielded)
        returned = nil
        XCTAssertNil(yielded)
    }

    func testBodyResumingItsOwnIteratorWithAValueGetsAnErrorAndDropsTheValue() {
        final class Holder { weak var it: RJIterator? }
        let holder = Holder()
        weak var dropped: Tracked?
        var inner: RJResult?
        let it = RJIterator {
            inner = holder.it?.next({ let value = Tracked(); dropped = value; return value }())
            return rj_yield("after")
        }
        holder.it = it
        XCTAssertEqual(it.next("first").value as? String, "after")
        XCTAssertEqual(inner?.error as? GeneratorError, .alreadyRunning)
        XCTAssertNil(dropped)
        XCTAssertEqual(it.next("given").value as? String, "given")
    }

    func testDelegationPassesInputsToTheInnerIterator() {
        var innerSaw: [String] = []
        let it = RJIterator {
            rj_yield(RJIterator {
                innerSaw.append("\(rj_yield("a") ?? "nil")")
                innerSaw.append("\(rj_yield("b") ?? "nil")")
                return "inner done"
            })
        }
        XCTAssertEqual(it.next().value as? String, "a")
        XCTAssertEqual(it.next("x").value as? String, "b")
        XCTAssertEqual(it.next().value as? String, "inner done")
        XCTAssertEqual(innerSaw, ["x", "b"])
        XCTAssertTrue(it.next().done)
    }

    func testTwoThreadsResumingOneIteratorEachGetAValueOrAlreadyRunning() {
        let it = RJIterator {
            var x: Any? = 0
            while !(x is String) { x = rj_yield(x) }
            return x
        }
        it.next()
        let shared = UnsafeTransfer(it)
        let counts = Log()
        DispatchQueue.concurrentPerform(iterations: 2) { t in
            var values = 0
            var busy = 0
            for i in 0..<20_000 {
                let r = shared.value.next(t * 1_000_000 + i)
                if let error = r.error {
                    XCTAssertEqual(error as? GeneratorError, .alreadyRunning)
                    busy += 1
                } else {
                    // A value some next(x) gave, never a torn or foreign one.
                    XCTAssertNotNil(r.value as? Int)
                    values += 1
                }
            }
            counts.add("\(values + busy)")
        }
        XCTAssertEqual(counts.all, ["20000", "20000"])
        XCTAssertTrue(it.next("stop").done)
    }
}
