import Foundation
import XCTest

@testable import RJIterator
import RJPromises

// AsyncGenerator, row by row of docs/async-generators.md's table: each test names the
// behaviour, with ES2018's (checked with node) and Python's (PEP 525, checked with CPython
// 3.11) in a comment.

final class AsyncGeneratorTests: XCTestCase {
    // MARK: Consuming

    func testForTryAwaitOverABodyThatAwaitsBetweenYields() async throws {
        let gen = AsyncGenerator<Int, Void, String> { y in
            for i in 0..<5 {
                let r = rj_await(answerLater(i * 10))
                try y.yield(r.value as! Int)
            }
            return "done"
        }
        var seen: [Int] = []
        for try await x in gen { seen.append(x) }
        XCTAssertEqual(seen, [0, 10, 20, 30, 40])
        let last = try await gen.next()
        XCTAssertEqual(last, .returned("done"), "the return value again, as for a Generator")
    }

    // ES2018: it.next("ignored") -> {0}, it.next(5) -> {5}, it.next(6) -> {6, done}: the first
    // input is ignored, each later one is what the pending yield returns.
    func testInputsGoToThePendingYieldAndTheFirstIsIgnored() async throws {
        let gen = AsyncGenerator<Int, Int, Int> { y in
            let a = try y.yield(0)
            let b = try y.yield(a)
            return b
        }
        let first = try await gen.next(99)
        let second = try await gen.next(5)
        let third = try await gen.next(6)
        XCTAssertEqual([first, second, third], [.yielded(0), .yielded(5), .returned(6)])
    }

    func testEveryRJAwaitFormWorksInTheBody() async throws {
        let promise = Promise<Int>.pending()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.005) { promise.fulfill(3) }
        let gen = AsyncGenerator<String, Void, Void> { y in
            try y.yield("callback \(rj_await(answerLater(1)).value as! Int)")
            try y.yield("value \(try rj_awaitValue { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in done(2, nil) } as Int)")
            try y.yield("promise \(try rj_awaitValue(promise))")
            try y.yield("async \(try rj_awaitValue { () async throws -> Int in try await Task.sleep(nanoseconds: 1_000_000); return 4 })")
            let kept = LockedBox<RJAsyncCallback?>(nil)
            let timedOut = rj_await({ callback in kept.value = callback }, timeout: 0.01)
            try y.yield("timeout \(timedOut.error as? RJAsyncError == .timedOut)")
        }
        var seen: [String] = []
        for try await line in gen { seen.append(line) }
        XCTAssertEqual(seen, ["callback 1", "value 2", "promise 3", "async 4", "timeout true"])
    }

    // A body that yields without awaiting runs on the caller's thread, within the call.
    func testABodyWithoutAwaitsRunsOnTheCallersThread() async throws {
        let threads = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            for i in 0..<3 {
                threads.add("\(pthread_self())")
                try y.yield(i)
            }
        }
        for try await _ in gen { threads.add("\(pthread_self())") }
        let all = threads.all
        for pair in stride(from: 0, to: 6, by: 2) { XCTAssertEqual(all[pair], all[pair + 1], "body and caller share the thread") }
    }

    // After an await the body runs on the generator's queue.
    func testAfterAnAwaitTheBodyRunsOnItsQueue() async throws {
        let queue = DispatchQueue(label: "generator.queue")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")
        let gen = AsyncGenerator<String?, Void, Void>(on: queue) { y in
            // (Later than the body's suspension: work that completes before it is not waited for.)
            _ = rj_await(answerLater(0, after: 0.02))
            try y.yield(DispatchQueue.getSpecific(key: key))
        }
        let step = try await gen.next()
        XCTAssertEqual(step.yieldedValue, .some("mine"))
    }

    // MARK: The request queue (ES2018)

    // ES2018: Promise.all([it.next(), it.next(), it.next()]) on a body that awaits between
    // yields -> [{0}, {1}, {2}]: requests are queued and settled in order, each its own step.
    // Python 3.11: RuntimeError "anext(): asynchronous generator is already running".
    func testRequestsFromManyTasksAreQueuedAndEachGetsItsOwnValue() async throws {
        let gen = AsyncGenerator<Int, Void, Void> { y in
            var i = 0
            while true {
                _ = rj_await(answerLater(0, after: 0.0001))
                try y.yield(i)
                i += 1
            }
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await gen.next().yieldedValue! } }
            var all: [Int] = []
            for try await v in group { all.append(v) }
            return all
        }
        XCTAssertEqual(values.sorted(), Array(0..<100), "100 distinct values, none lost")
    }

    // ES2018 (queue-return-next): a = next(), b = return(4), c = next() while the body awaits
    // -> {1, false}, {4, true}, {undefined, true}: the return waits its turn and closes the
    // body at its next yield.
    func testReturnWhileTheBodyAwaitsWaitsItsTurnAndClosesAtTheNextYield() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Int> { y in
            defer { log.add("finally") }
            _ = rj_await(answerLater(0, after: 0.005))
            try y.yield(1)
            try y.yield(2)
            return 0
        }
        async let a = gen.next()
        try await Task.sleep(nanoseconds: 1_000_000)
        async let b = gen.return(4)
        try await Task.sleep(nanoseconds: 1_000_000)
        async let c = gen.next()
        let (ra, rb, rc) = try await (a, b, c)
        XCTAssertEqual(ra, .yielded(1))
        XCTAssertEqual(rb, .returned(4))
        XCTAssertEqual(rc, .returned(4), "here: the kept outcome (ES2018: {undefined, true})")
        XCTAssertEqual(log.all, ["finally"])
    }

    // ES2018: log after three next() on a fresh generator is [1, 2, 3]: the body runs only while
    // a request is pending. Python: the same.
    func testNoBufferingTheBodyRunsOnlyForRequests() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            for i in 1...10 {
                log.add("yield \(i)")
                try y.yield(i)
            }
        }
        for _ in 0..<3 { _ = try await gen.next() }
        try await Task.sleep(nanoseconds: 20_000_000)
        XCTAssertEqual(log.all, ["yield 1", "yield 2", "yield 3"])
    }

    // ES2018 (return-fresh): return(5) on a fresh generator -> {5, true}, the body never runs,
    // then next() -> {undefined, true}.
    func testReturnOnAFreshGeneratorNeverRunsTheBody() async throws {
        let ran = Log()
        let gen = AsyncGenerator<Int, Void, Int> { y in ran.add("ran"); try y.yield(1); return 0 }
        let returned = try await gen.return(5)
        XCTAssertEqual(returned, .returned(5))
        let after = try await gen.next()
        XCTAssertEqual(after, .returned(5))
        XCTAssertEqual(ran.all, [])
    }

    // ES2018 (throw-fresh): throw(E) on a fresh generator rejects with E, the body never runs,
    // then next() -> {undefined, true}. Python: athrow on a fresh generator raises it, then
    // StopAsyncIteration. Here later requests throw E again (the kept outcome, as Generator).
    func testThrowOnAFreshGeneratorCompletesItWithoutRunningTheBody() async throws {
        let ran = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in ran.add("ran"); try y.yield(1) }
        await XCTAssertThrowsAsync(try await gen.throw(TestError(code: 1))) { XCTAssertEqual($0 as? TestError, TestError(code: 1)) }
        await XCTAssertThrowsAsync(try await gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 1)) }
        XCTAssertEqual(ran.all, [])
        XCTAssertEqual(gen.state, .completed)
    }

    // ES2018 (return-cleanup-yields): return(7) at `try { yield 1 } finally { yield "cleanup" }`
    // -> {"cleanup", false}, then next() -> {7, true}.
    func testReturnWhoseCleanupYieldsGivesThatValueThenTheReturn() async throws {
        let gen = AsyncGenerator<String, Void, String> { y in
            do { try y.yield("1") } catch {
                try y.yield("cleanup")
                throw error
            }
            return "end"
        }
        _ = try await gen.next()
        let cleanup = try await gen.return("7")
        let end = try await gen.next()
        XCTAssertEqual([cleanup, end], [.yielded("cleanup"), .returned("7")])
    }

    // ES2018 (throw-caught): throw(x) at a yield the body catches -> the value it yields next.
    // Python: athrow the same.
    func testThrowAtAYieldTheBodyCatches() async throws {
        let gen = AsyncGenerator<String, Void, Void> { y in
            do { try y.yield("1") } catch let e as TestError { try y.yield("caught \(e.code)") }
        }
        _ = try await gen.next()
        let caught = try await gen.throw(TestError(code: 3))
        XCTAssertEqual(caught.yieldedValue, "caught 3")
    }

    // ES2018 (body-throws): the request rejects with the error; later next() -> {undefined,
    // true}. Python: StopAsyncIteration later. Here the kept outcome: the error again.
    func testABodyThatThrowsFailsTheWaitingRequestAndLaterOnes() async throws {
        let gen = AsyncGenerator<Int, Void, Void> { y in
            try y.yield(1)
            _ = rj_await(answerLater(0))
            throw TestError(code: 9)
        }
        _ = try await gen.next()
        await XCTAssertThrowsAsync(try await gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 9)) }
        await XCTAssertThrowsAsync(try await gen.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 9)) }
    }

    // ES2018 (return-completed, throw-completed): return(3) -> {3, true}; throw(e) rejects e.
    func testReturnAndThrowOnACompletedGenerator() async throws {
        let gen = AsyncGenerator<Int, Void, Int> { y in try y.yield(1); return 0 }
        _ = try await gen.next()
        _ = try await gen.next()
        let returned = try await gen.return(3)
        XCTAssertEqual(returned, .returned(3))
        await XCTAssertThrowsAsync(try await gen.throw(TestError(code: 4))) { XCTAssertEqual($0 as? TestError, TestError(code: 4)) }
        let kept = try await gen.next()
        XCTAssertEqual(kept, .returned(0), "the kept outcome is unchanged")
    }

}
