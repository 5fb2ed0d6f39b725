import Foundation
import XCTest

@testable import RJIterator

// A body consuming the world it lives in (issue 39): `yieldAll` of any Sequence (both
// yielders) and of any AsyncSequence (the async yielder), with delegation's close, throw and
// cancellation semantics; `rj_awaitValue(nextOf: &iterator)`, the plain loop over an
// AsyncSequence in a body that cannot `await`; and relays (a body that reads one async
// generator and yields to its own reader), pulling and delegating, one and two levels.

private struct Boom: Error, Equatable {}

/// An AsyncSequence of the user's own, not Sendable: 0, 1, ... up to `count`, each after a hop.
private struct Countdown: AsyncSequence {
    typealias Element = Int
    let count: Int
    struct AsyncIterator: AsyncIteratorProtocol {
        var next = 0
        let count: Int
        mutating func next() async throws -> Int? {
            guard next < count else { return nil }
            try await Task.sleep(nanoseconds: 100_000)
            defer { next += 1 }
            return next
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

final class AsyncGeneratorConsumingTests: XCTestCase {
    // The example: 1,2,3,4|1,2,3,4,5,6.
    func testYieldAllOfSequencesAndOfAnAsyncStream() async throws {
        let sync = Generator<Int, Void, Void> { y in
            try y.yield(1); try y.yieldAll([2, 3]); try y.yieldAll(["b"].lazy.map { _ in 4 })
        }
        let stream = AsyncStream<Int> { c in c.yield(5); c.yield(6); c.finish() }
        let async = AsyncGenerator<Int, Void, Void> { y in
            try y.yield(1); try y.yieldAll(2...4); try y.yieldAll(stream)
        }
        var values: [Int] = []
        for try await x in async { values.append(x) }
        XCTAssertEqual(sync.map(String.init).joined(separator: ",") + "|" + values.map(String.init).joined(separator: ","),
                       "1,2,3,4|1,2,3,4,5,6")
    }

    // yieldAll of a Generator still delegates (returns its value), though a Generator is a Sequence.
    func testYieldAllOfAGeneratorStillDelegatesAndReturnsItsValue() async throws {
        let outer = AsyncGenerator<Int, Void, String> { y in
            let inner = Generator<Int, Void, String> { y in try y.yield(1); return "inner" }
            let result: String = try y.yieldAll(inner)
            return result
        }
        await XCTAssertStep(try await outer.next(), "yielded(1)")
        await XCTAssertStep(try await outer.next(), "returned(\"inner\")")
    }

    // An AsyncThrowingStream's error comes out of yieldAll; the body may catch it.
    func testAnAsyncSequencesErrorComesOutOfYieldAll() async throws {
        let (stream, c) = AsyncThrowingStream<Int, any Error>.makeStream()
        c.yield(1)
        c.finish(throwing: Boom())
        let gen = AsyncGenerator<Int, Void, String> { y in
            do { try y.yieldAll(stream) } catch is Boom { return "caught" }
            return "no error"
        }
        await XCTAssertStep(try await gen.next(), "yielded(1)")
        await XCTAssertStep(try await gen.next(), "returned(\"caught\")")
    }

    // A sequence of the user's own, which is not Sendable, each element after a real suspension.
    func testYieldAllOfAUsersOwnAsyncSequence() async throws {
        let gen = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(Countdown(count: 5)) }
        var values: [Int] = []
        for try await x in gen { values.append(x) }
        XCTAssertEqual(values, [0, 1, 2, 3, 4])
    }

    /// A generator whose body delegates to a stream only it holds (the test keeps the
    /// continuation): when the body lets the stream go, the stream ends.
    private func delegatingToAStream(_ log: Log) -> (AsyncGenerator<Int, Void, String>, AsyncStream<Int>.Continuation) {
        let (stream, c) = AsyncStream<Int>.makeStream()
        c.onTermination = { why in log.add("terminated \(why)") }
        c.yield(1)
        c.yield(2)
        let gen = AsyncGenerator<Int, Void, String> { y in
            defer { log.add("cleanup") }
            do {
                try y.yieldAll(stream)
            } catch let error as Boom {
                log.add("caught \(error)")
                return "thrown"
            }
            return "ended"
        }
        return (gen, c)
    }

    // return(v) at a yield inside yieldAll(stream): the body's cleanup runs and it lets the
    // stream go (an AsyncStream nobody else holds then ends: onTermination, cancelled);
    // throw(e) there: e comes out of yieldAll.
    func testCloseAndThrowAtAYieldInsideYieldAllOfAStream() async throws {
        for closing in [true, false] {
            let log = Log()
            let (gen, continuation) = delegatingToAStream(log)
            await XCTAssertStep(try await gen.next(), "yielded(1)")
            if closing {
                await XCTAssertStep(try await gen.return("early"), "returned(\"early\")")
            } else {
                await XCTAssertStep(try await gen.throw(Boom()), "returned(\"thrown\")")
            }
            try await eventually { log.all.contains { $0.hasPrefix("terminated") } }
            XCTAssertEqual(log.all.filter { !$0.hasPrefix("terminated") }, closing ? ["cleanup"] : ["caught Boom()", "cleanup"])
            XCTAssertEqual(log.all.filter { $0.hasPrefix("terminated") }, ["terminated cancelled"])
            withExtendedLifetime(continuation) {}
        }
    }

    // The reader, whose loop owns the generator, is cancelled while the body waits for the
    // stream's next element: the body gets CancellationError, the stream ends (cancelled), the
    // reader throws CancellationError once the body's cleanup has run.
    func testCancellingTheReaderCancelsThePendingElement() async throws {
        let log = Log()
        let (stream, c) = AsyncStream<Int>.makeStream()
        c.onTermination = { why in log.add("terminated \(why)") }
        c.yield(1)
        @Sendable func reading() -> AsyncGenerator<Int, Void, Void> {
            AsyncGenerator<Int, Void, Void> { y in
                log.add("started")
                defer { log.add("cleanup") }
                do { try y.yieldAll(stream) } catch { log.add("yieldAll threw \(type(of: error))"); throw error }
            }
        }
        // The loop's iterator holds the only reference (a `let` holding it too would be another reader).
        let reader = Task {
            var values: [Int] = []
            for try await x in reading() { values.append(x) }
            return values
        }
        try await eventually { log.all == ["started"] }
        try await Task.sleep(nanoseconds: 20_000_000)
        reader.cancel()
        await XCTAssertThrowsAsync(try await reader.value) { XCTAssertTrue($0 is CancellationError) }
        XCTAssertTrue(log.all.contains("cleanup"), "the cleanup ran before the reader threw")
        try await eventually { log.all.count == 4 }
        XCTAssertEqual(Set(log.all), ["started", "yieldAll threw CancellationError", "cleanup", "terminated cancelled"])
    }

    // The plain loop in an rj_async body: every element, then nil; an error thrown; cancelling
    // the task while it waits ends the stream and throws CancellationError.
    func testRJAwaitValueOfAnIteratorInAnRJAsyncBody() throws {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let stream = AsyncStream<Int> { c in for i in 0..<3 { c.yield(i) }; c.finish() }
        let (throwing, tc) = AsyncThrowingStream<Int, any Error>.makeStream()
        tc.yield(7)
        tc.finish(throwing: Boom())
        rj_async(on: DispatchQueue(label: "reader")) {
            var it = stream.makeAsyncIterator()
            while let x = try? rj_awaitValue(nextOf: &it) { log.add("\(x)") }
            var t = throwing.makeAsyncIterator()
            do {
                while let x = try rj_awaitValue(nextOf: &t) { log.add("t\(x)") }
            } catch {
                log.add("threw \(error)")
            }
        }.finally { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(log.all, ["0", "1", "2", "t7", "threw Boom()"])

        let (never, nc) = AsyncStream<Int>.makeStream()
        nc.onTermination = { why in log.add("terminated \(why)") }
        let task = rj_async(on: DispatchQueue(label: "waiter")) {
            var it = never.makeAsyncIterator()
            do { _ = try rj_awaitValue(nextOf: &it) } catch { log.add("waiter: \(type(of: error))") }
        }.finally { done.signal() }
        usleep(20_000)
        task.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(log.all.contains("waiter: CancellationError"), "\(log.all)")
        let terminated = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for _ in 0..<500 where !log.all.contains("terminated cancelled") { usleep(10_000) }
            terminated.signal()
        }
        terminated.wait()
        XCTAssertTrue(log.all.contains("terminated cancelled"), "\(log.all)")
    }

    func testRJAwaitValueOfAnIteratorOutsideABodyThrowsNotInAsync() {
        let stream = AsyncStream<Int> { $0.finish() }
        var it = stream.makeAsyncIterator()
        XCTAssertThrowsError(try rj_awaitValue(nextOf: &it)) { XCTAssertEqual($0 as? RJAsyncError, .notInAsync) }
    }

    // Relays: values through one and two relaying levels, pulling and delegating, the inner
    // awaiting between values; in order, each once, the inner's end passed on.
    func testRelaysPassEveryValueInOrder() async throws {
        func source() -> AsyncGenerator<Int, Void, Void> {
            AsyncGenerator { y in
                for i in 0..<50 {
                    if i % 7 == 0 { _ = rj_await(answerLater(0, after: 0.0002)) }
                    try y.yield(i)
                }
            }
        }
        func relay(_ g: AsyncGenerator<Int, Void, Void>, delegating: Bool) -> AsyncGenerator<Int, Void, Void> {
            if delegating { return AsyncGenerator { y in try y.yieldAll(g) } }
            return AsyncGenerator { y in
                while case .yielded(let v) = try rj_awaitValue(nextOf: g) { try y.yield(v) }
            }
        }
        for delegating in [false, true] {
            for levels in [1, 2] {
                var g = source()
                for _ in 0..<levels { g = relay(g, delegating: delegating) }
                var values: [Int] = []
                for try await v in g { values.append(v) }
                XCTAssertEqual(values, Array(0..<50), "delegating \(delegating), \(levels) levels")
            }
        }
    }

    // return through a pulling relay's reader: the relay's body is closed at its yield, and
    // releasing the relay lets the source go (closed on its release).
    func testReturnOfARelayClosesItAndTheSourceIsReleased() async throws {
        let log = Log()
        var source: AsyncGenerator<Int, Void, Void>? = AsyncGenerator { y in
            defer { log.add("source closed") }
            var i = 0
            while true { try y.yield(i); i += 1 }
        }
        let relay = AsyncGenerator<Int, Void, Void> { [source] y in
            defer { log.add("relay closed") }
            while case .yielded(let v) = try rj_awaitValue(nextOf: source!) { try y.yield(v) }
        }
        source = nil
        await XCTAssertStep(try await relay.next(), "yielded(0)")
        await XCTAssertStep(try await relay.return(()), "returned()")
        try await eventually { log.all.count == 2 }
        XCTAssertEqual(log.all, ["relay closed", "source closed"])
    }
}

/// Asserts a step, as text (`Void` is not `Equatable`).
func XCTAssertStep<E, R>(_ step: @autoclosure () async throws -> GeneratorStep<E, R>, _ expected: String, _ message: String = "",
                         file: StaticString = #filePath, line: UInt = #line) async {
    do {
        let got = try await step()
        XCTAssertEqual("\(got)", expected, message, file: file, line: line)
    } catch {
        XCTFail("threw \(error), expected \(expected) \(message)", file: file, line: line)
    }
}
