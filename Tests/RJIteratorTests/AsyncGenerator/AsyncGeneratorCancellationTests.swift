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
                let r = rj_await(answerLater(i, after: 0.05))
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
