import Foundation
import XCTest

@testable import RJIterator
import RJPromises

// AsyncGenerator, row by row of docs/async-generators.md's table: each test names the
// behaviour, with ES2018's (checked with node) and Python's (PEP 525, checked with CPython
// 3.11) in a comment.

final class AsyncGeneratorCancellationTests: XCTestCase {
    // MARK: Cancellation, abandonment

    // Python: cancelling the task awaiting anext() raises CancelledError at the generator's
    // await; its finally runs, then the task sees the error; later anext ->
    // StopAsyncIteration. ES2018 has no cancellation. Here too, for a loop whose iterator owns
    // its generator (nobody else can read it), the loop throws only once the cleanups have run
    // (a slow one included, within the closing grace of 0.1 s).
    func testCancellingALoopThatOwnsItsGeneratorStopsTheProducerAndRunsItsCleanupsFirst() async throws {
        let log = Log()
        final class Weak: @unchecked Sendable { weak var gen: AsyncGenerator<Int, Void, Void>? }
        let weak = Weak()
        /// Awaits before each value (`awaits`), or computes them (then a cancelled loop sees its
        /// cancellation at its next check, the body at a `yield`).
        @Sendable func producer(awaits: Bool) -> AsyncGenerator<Int, Void, Void> {
            let gen = AsyncGenerator<Int, Void, Void> { y in
                defer {
                    usleep(30_000)
                    log.add("cleanup")
                }
                var i = 0
                while true {
                    if awaits {
                        let r = rj_await(answerLater(i, after: 0.05))
                        if let error = r.error { log.add("await: \(type(of: error))"); throw error }
                    }
                    try y.yield(i)
                    i += 1
                }
            }
            weak.gen = gen
            return gen
        }
        for awaits in [true, false] {
            log.clear()
            let consumer = Task {
                var n = 0
                for try await _ in producer(awaits: awaits) {
                    n += 1
                    if !awaits { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return n
            }
            if awaits {
                try await Task.sleep(nanoseconds: 120_000_000)
                consumer.cancel()
            }
            await XCTAssertThrowsAsync(try await consumer.value) { XCTAssertTrue($0 is CancellationError, "\($0)") }
            let expected = awaits ? ["await: CancellationError", "cleanup"] : ["cleanup"]
            XCTAssertEqual(log.all, expected, "awaits \(awaits): the cleanups ran before the loop threw")
            try await eventually { weak.gen == nil }
            XCTAssertNil(weak.gen)
        }
    }

    // Issue 52: a reader that does not hold the only reference (here the test holds the
    // generator too) has its read withdrawn: CancellationError at once, the body goes on (the
    // step it was producing is kept for the next read), and the release closes it.
    func testCancellingAReaderOfAGeneratorHeldElsewhereWithdrawsOnlyItsRead() async throws {
        let log = Log()
        let go = DispatchSemaphore(value: 0)
        var gen: AsyncGenerator<Int, Void, Void>? = AsyncGenerator<Int, Void, Void> { y in
            defer { log.add("cleanup") }
            var i = 0
            while true {
                _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                try y.yield(i)
                i += 1
            }
        }
        let reader = Task { [gen] in for try await _ in gen! {} }
        let held = gen!
        try await eventually { held.state == .running }
        reader.cancel()
        await XCTAssertThrowsAsync(try await reader.value) { XCTAssertTrue($0 is CancellationError, "\($0)") }
        _ = consume reader
        XCTAssertEqual(log.all, [], "answered at once; the body goes on")
        XCTAssertFalse(held.isCancelled)
        go.signal()
        await XCTAssertStep(try await held.next(), "yielded(0)", "the withdrawn read's step goes to the next read")
        go.signal()
        await XCTAssertStep(try await held.next(), "yielded(1)")
        _ = consume held
        gen = nil
        go.signal()
        try await eventually { log.all == ["cleanup"] }
        XCTAssertEqual(log.all, ["cleanup"], "the release closed it")
    }

    // A read from a task cancelled already, of a generator held elsewhere: withdrawn before it
    // is made; the body is untouched and the next read gets the next value.
    func testAReadFromACancelledTaskIsWithdrawnAndTheBodyGoesOn() async throws {
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
        XCTAssertEqual(log.all, [])
        await XCTAssertStep(try await gen.next(), "yielded(2)")
    }

    // Commands are not reads: `return` and `throw` from a cancelled task still act.
    func testReturnAndThrowFromACancelledTaskStillAct() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Int> { y in
            defer { log.add("cleanup") }
            do { try y.yield(1) } catch is CancellationError { log.add("caught"); try y.yield(2) }
            try y.yield(3)
            return 0
        }
        _ = try await gen.next()
        let thrown = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return "\(try await gen.throw(CancellationError()))"
        }.result
        XCTAssertEqual(try thrown.get(), "yielded(2)")
        let returned = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return "\(try await gen.return(7))"
        }.result
        XCTAssertEqual(try returned.get(), "returned(7)")
        XCTAssertEqual(log.all, ["caught", "cleanup"])
    }

    // Racing cancellations against the awaited work's own completion, 1,000 times: each body
    // that started has its cleanup run exactly once (a body whose first request came from a
    // task cancelled already never starts), each request either gets its value or throws
    // CancellationError, nothing is left running.
    func testCancelRacingResumeRunsEachCleanupExactlyOnce() async throws {
        let counter = EventCounter()
        let rounds = RJRuntime.sanitizer == nil ? 1000 : 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<rounds {
                group.addTask {
                    let gen = AsyncGenerator<Int, Void, Void> { y in
                        counter.add("started")
                        defer { counter.add("cleanup") }
                        while true {
                            let r = rj_await(answerLater(round, after: Double(round % 7) * 0.0002))
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
                    log.add("await in cleanup: \(type(of: rj_await(answerLater(0)).error!))")
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
                _ = rj_await(answerLater(0, after: 0.0002))
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
                _ = rj_await(answerLater(0, after: 0.02))
                try y.yield(7)
            }
            weak.gen = gen
            return try await gen.next()
        }()
        XCTAssertEqual(step.yieldedValue, 7)
        try await eventually { weak.gen == nil }
        XCTAssertNil(weak.gen)
    }

}
