import Foundation
import XCTest

@testable import RJIterator
import RJPromises

// AsyncGenerator, row by row of docs/async-generators.md's table: each test names the
// behaviour, with ES2018's (checked with node) and Python's (PEP 525, checked with CPython
// 3.11) in a comment.

/// A callback that answers `value` on another queue after `delay` seconds.
private func later<T: Sendable>(_ value: T, after delay: Double = 0.001) -> RJAsyncClosure {
    { callback in DispatchQueue.global().asyncAfter(deadline: .now() + delay) { callback(value, nil) } }
}

/// Counts events from several threads.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func add(_ key: String) { lock.withLock { counts[key, default: 0] += 1 } }
    subscript(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }
}

/// Waits (polling, up to 5 s) until `condition` holds.
private func eventually(_ condition: @escaping @Sendable () -> Bool) async throws {
    for _ in 0..<500 where !condition() { try await Task.sleep(nanoseconds: 10_000_000) }
}

final class AsyncGeneratorTests: XCTestCase {
    // MARK: Consuming

    func testForTryAwaitOverABodyThatAwaitsBetweenYields() async throws {
        let gen = AsyncGenerator<Int, Void, String> { y in
            for i in 0..<5 {
                let r = rj_await(later(i * 10))
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
            try y.yield("callback \(rj_await(later(1)).value as! Int)")
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
            _ = rj_await(later(0))
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
                _ = rj_await(later(0, after: 0.0001))
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
            _ = rj_await(later(0, after: 0.005))
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
            _ = rj_await(later(0))
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

    // MARK: Cancellation, abandonment

    // Python: cancelling the task awaiting anext() raises CancelledError at the generator's
    // await; its finally runs, then the task sees the error; later anext ->
    // StopAsyncIteration. ES2018 has no cancellation. Here too the consumer's `next` throws
    // only once the cleanups have run (a slow one included).
    func testCancellingTheConsumerStopsTheProducerAndRunsItsCleanups() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer {
                usleep(50_000)
                log.add("cleanup")
            }
            var i = 0
            while true {
                let r = rj_await(later(i, after: 0.05))
                if let error = r.error { log.add("await: \(type(of: error))"); throw error }
                try y.yield(i)
                i += 1
            }
        }
        let consumer = Task {
            var n = 0
            for try await _ in gen { n += 1 }
            return n
        }
        try await Task.sleep(nanoseconds: 120_000_000)
        consumer.cancel()
        await XCTAssertThrowsAsync(try await consumer.value) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        XCTAssertEqual(log.all, ["await: CancellationError", "cleanup"], "the cleanups ran before the loop threw")
        XCTAssertEqual(gen.state, .completed)
    }

    // A request from a task cancelled already: the body's yield throws CancellationError, the
    // cleanups run, the request throws it.
    func testARequestFromACancelledTaskClosesTheBody() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer { log.add("cleanup") }
            try y.yield(1)
            try y.yield(2)
        }
        _ = try await gen.next()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await gen.next()
        }
        await XCTAssertThrowsAsync(try await task.value) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertEqual(log.all, ["cleanup"])
    }

    // Racing cancellations against the awaited work's own completion, 1,000 times: each body
    // that started has its cleanup run exactly once (a body whose first request came from a
    // task cancelled already never starts), each request either gets its value or throws
    // CancellationError, nothing is left running.
    func testCancelRacingResumeRunsEachCleanupExactlyOnce() async throws {
        let counter = Counter()
        let rounds = RJRuntime.sanitizer == nil ? 1000 : 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<rounds {
                group.addTask {
                    let gen = AsyncGenerator<Int, Void, Void> { y in
                        counter.add("started")
                        defer { counter.add("cleanup") }
                        while true {
                            let r = rj_await(later(round, after: Double(round % 7) * 0.0002))
                            if let error = r.error { throw error }
                            try y.yield(round)
                        }
                    }
                    let consumer = Task { try await gen.next() }
                    if round % 3 != 0 { try await Task.sleep(nanoseconds: UInt64(round % 5) * 100_000) }
                    consumer.cancel()
                    do {
                        let step = try await consumer.value
                        XCTAssertEqual(step.yieldedValue, round)
                        counter.add("value")
                    } catch is CancellationError {
                        counter.add("cancelled")
                    }
                }
            }
            try await group.waitForAll()
        }
        try await eventually { counter["cleanup"] == counter["started"] }
        XCTAssertEqual(counter["cleanup"], counter["started"], "every body that started closed, once")
        XCTAssertGreaterThan(counter["started"], rounds / 2)
        XCTAssertEqual(counter["value"] + counter["cancelled"], rounds)
    }

    // The last reference to a generator suspended at a yield goes: closed as a Generator is.
    // Python: the event loop's finalizer hook schedules aclose(). ES2018: nothing runs.
    func testReleaseOfASuspendedGeneratorClosesItsBody() async throws {
        let log = Log()
        do {
            let gen = AsyncGenerator<Int, Void, Void> { y in
                defer { log.add("closed") }
                do { try y.yield(1) } catch {
                    // An await in a cleanup run on release gives CancellationError at once.
                    log.add("await in cleanup: \(type(of: rj_await(later(0)).error!))")
                    throw error
                }
                try y.yield(2)
            }
            let first = try await gen.next().yieldedValue
            XCTAssertEqual(first, 1)
        }
        XCTAssertEqual(log.all, ["await in cleanup: CancellationError", "closed"])
    }

    // While the body awaits, the await keeps the generator alive: dropping every reference
    // does not lose the request.
    // The body resumed from an await on another thread and answered from there: the thread
    // that served the request lets go of the generator before the answer goes out, so the
    // caller's release is the last one and closes the body there, before the caller goes on.
    func testReleaseRightAfterAnAnswerFromAnotherThreadClosesTheBodyThere() async throws {
        let rounds = 300
        let log = Log()
        for round in 0..<rounds {
            var gen: AsyncGenerator<Int, Void, Void>? = AsyncGenerator { y in
                defer { log.add("closed \(round)") }
                _ = rj_await(later(0, after: 0.0002))
                try y.yield(1)
                try y.yield(2)
            }
            _ = try await gen!.next()
            gen = nil
            log.add("released \(round)")
        }
        XCTAssertEqual(log.all, (0..<rounds).flatMap { ["closed \($0)", "released \($0)"] })
    }

    func testAPendingAwaitKeepsTheGeneratorAlive() async throws {
        final class Weak: @unchecked Sendable { weak var gen: AsyncGenerator<Int, Void, Void>? }
        let weak = Weak()
        let step: GeneratorStep<Int, Void> = try await {
            let gen = AsyncGenerator<Int, Void, Void> { y in
                _ = rj_await(later(0, after: 0.02))
                try y.yield(7)
            }
            weak.gen = gen
            return try await gen.next()
        }()
        XCTAssertEqual(step.yieldedValue, 7)
        try await eventually { weak.gen == nil }
        XCTAssertNil(weak.gen)
    }

    // MARK: Buffering (opt-in)

    func testABufferLetsTheBodyRunAheadUpToItsCapacity() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 2) { y in
            for i in 1...10 {
                log.add("\(i)")
                try y.yield(i)
            }
        }
        let first = try await gen.next().yieldedValue
        XCTAssertEqual(first, 1)
        try await eventually { log.all.count >= 3 }
        try await Task.sleep(nanoseconds: 20_000_000)
        XCTAssertEqual(log.all, ["1", "2", "3"], "one delivered, two produced ahead, no more")
        var rest: [Int] = []
        for try await x in gen { rest.append(x) }
        XCTAssertEqual(rest, Array(2...10), "in order, each once")
    }

    func testABufferedBodyThatAwaitsDeliversInOrderToConcurrentConsumers() async throws {
        let gen = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 4) { y in
            for i in 0..<200 {
                if i % 3 == 0 { _ = rj_await(later(0, after: 0.0001)) }
                try y.yield(i)
            }
        }
        let values = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var mine: [Int] = []
                    while case .yielded(let x) = try await gen.next() { mine.append(x) }
                    return mine
                }
            }
            var all: [Int] = []
            for try await part in group {
                XCTAssertEqual(part, part.sorted(), "each consumer sees values in order")
                all += part
            }
            return all
        }
        XCTAssertEqual(values.sorted(), Array(0..<200))
    }

    // MARK: From rj_async and other async generators

    func testAnRJAsyncBodyConsumesAnAsyncGenerator() throws {
        let gen = AsyncGenerator<Int, Void, String> { y in
            for i in 1...3 {
                _ = rj_await(later(i))
                try y.yield(i)
            }
            return "end"
        }
        let seen = Log()
        let task = rj_async(on: DispatchQueue(label: "consumer")) {
            while true {
                let r = rj_await(nextOf: gen)
                if let error = r.error { seen.add("error \(error)"); return }
                if r.done { seen.add("returned \(r.value as! String)"); return }
                seen.add("\(r.value as! Int)")
            }
        }
        let done = expectation(description: "done")
        task.finally { done.fulfill() }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(seen.all, ["1", "2", "3", "returned end"])
    }

    func testCancellingTheRJAsyncConsumerCancelsTheGenerator() throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer { log.add("producer closed") }
            while true {
                let r = rj_await(later(0, after: 0.05))
                if let error = r.error { throw error }
                try y.yield(0)
            }
        }
        let task = rj_async(on: DispatchQueue(label: "consumer")) {
            let r = rj_await(nextOf: gen)
            log.add("consumer got \(r.error.map { "\(type(of: $0))" } ?? "a value")")
        }
        let done = expectation(description: "done")
        task.finally { done.fulfill() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { task.cancel() }
        wait(for: [done], timeout: 5)
        let closed = expectation(description: "closed")
        DispatchQueue.global().async {
            for _ in 0..<500 where !log.all.contains("producer closed") { usleep(10_000) }
            closed.fulfill()
        }
        wait(for: [closed], timeout: 6)
        // The consumer's await gives its own task's cancellation error, `CancellationError` (one
        // error for every await host since issue 30; it was RJAsyncError.cancelled); the
        // producer, cancelled with it, unwinds.
        XCTAssertEqual(log.all.sorted(), ["consumer got CancellationError", "producer closed"])
    }

    func testTypedAwaitOfTheNextStepWithInputs() throws {
        let doubler = AsyncGenerator<Int, Int, Void> { y in
            var x = 0
            while true {
                _ = rj_await(later(0))
                x = try y.yield(x * 2)
            }
        }
        let seen = Log()
        let task = rj_async(on: DispatchQueue(label: "consumer")) {
            _ = try rj_awaitValue(nextOf: doubler, sending: 0)
            for i in 1...3 { seen.add("\(try rj_awaitValue(nextOf: doubler, sending: i).yieldedValue!)") }
        }
        let done = expectation(description: "done")
        task.finally { done.fulfill() }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(seen.all, ["2", "4", "6"])
        XCTAssertNil(task.error)
    }

    func testYieldAllOfAsyncAndSyncGenerators() async throws {
        let inner = AsyncGenerator<Int, Void, String> { y in
            try y.yield(1)
            _ = rj_await(later(0))
            try y.yield(2)
            return "inner"
        }
        let outer = AsyncGenerator<Int, Void, String> { y in
            let a = try y.yieldAll(inner)
            let b = try y.yieldAll(Generator<Int, Void, Int> { y in try y.yield(3); return 4 })
            return "\(a) \(b)"
        }
        var seen: [Int] = []
        while case .yielded(let x) = try await outer.next() { seen.append(x) }
        XCTAssertEqual(seen, [1, 2, 3])
        let last = try await outer.next()
        XCTAssertEqual(last, .returned("inner 4"))
    }

    // ES2018: yield* of an async generator that was already advanced goes on from where it is
    // (its next value, then its return value): with a Void input there is nothing to make up.
    // Before the state machine of issue 30 this threw GeneratorError.delegateAlreadyStarted.
    func testYieldAllOfAStartedAsyncGeneratorGoesOnFromWhereItIs() async throws {
        let inner = AsyncGenerator<Int, Void, String> { y in
            try y.yield(1)
            try y.yield(2)
            return "inner"
        }
        let first = try await inner.next()
        XCTAssertEqual(first, .yielded(1))
        let outer = AsyncGenerator<Int, Void, String> { y in try y.yieldAll(inner) }
        let second = try await outer.next()
        XCTAssertEqual(second, .yielded(2))
        let last = try await outer.next()
        XCTAssertEqual(last, .returned("inner"))
    }

    // ES2018 yield* in an async generator: return(v) of the outer goes to the inner first.
    func testReturnOfADelegatingGeneratorClosesTheInnerFirst() async throws {
        let log = Log()
        let inner = AsyncGenerator<Int, Void, String> { y in
            defer { log.add("inner") }
            try y.yield(1)
            try y.yield(2)
            return "inner end"
        }
        let outer = AsyncGenerator<Int, Void, String> { y in
            defer { log.add("outer") }
            return try y.yieldAll(inner)
        }
        _ = try await outer.next()
        let returned = try await outer.return("v")
        XCTAssertEqual(returned, .returned("v"))
        XCTAssertEqual(log.all, ["inner", "outer"])
    }

    func testAwaitingItsOwnNextFromItsBodyIsRefused() async throws {
        let box = LockedBox<AsyncGenerator<Int, Void, Void>?>(nil)
        let gen = AsyncGenerator<Int, Void, Void> { y in
            let r = rj_await(nextOf: box.value!)
            try y.yield((r.error as? GeneratorError) == .alreadyRunning ? 1 : 0)
        }
        box.value = gen
        let step = try await gen.next()
        XCTAssertEqual(step.yieldedValue, 1)
        box.value = nil
    }

    // MARK: Scale

    func testTenThousandAsyncGeneratorsConsumedConcurrently() async throws {
        let count = aliveAtOnce(10_000)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<count {
                group.addTask {
                    let gen = AsyncGenerator<Int, Void, Void> { y in
                        try y.yield(i)
                        _ = rj_await(later(0, after: 0.0005))
                        try y.yield(1)
                    }
                    var sum = 0
                    for try await x in gen { sum += x }
                    return sum
                }
            }
            var sum = 0
            for try await part in group { sum += part }
            return sum
        }
        XCTAssertEqual(total, (0..<count).reduce(0, +) + count)
    }
}

/// A value several tasks read and one writes, behind a lock.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// `XCTAssertThrowsError` for an async expression.
func XCTAssertThrowsAsync<T>(_ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line,
                             _ check: (any Error) -> Void = { _ in }) async {
    do {
        _ = try await expression()
        XCTFail("no error thrown", file: file, line: line)
    } catch {
        check(error)
    }
}
