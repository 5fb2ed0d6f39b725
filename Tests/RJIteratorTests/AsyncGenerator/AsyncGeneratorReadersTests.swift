import Foundation
import XCTest

@testable import RJIterator

// Several readers of one async generator, and the cancellation of one of them (issue 52; the
// rule before it, issue 39's, ended the generator for everyone). The rule
// (docs/async-generators.md, "Several readers"): a cancelled reader's read is withdrawn (it
// throws CancellationError at once) and the others go on; the step produced for it is kept for
// the next read (`Input == Void`); the body is cancelled only when nobody can read it any more:
// the cancelled reader held the last reference, or the last reference goes. swift-async-algorithms'
// `share()` and `AsyncChannel` do the same; Python and `AsyncStream` end for everyone.

/// What one reader saw.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    private var ending: String?
    func add(_ v: Int) { lock.withLock { values.append(v) } }
    func end(_ how: String) { lock.withLock { ending = how } }
    var all: [Int] { lock.withLock { values } }
    var end: String? { lock.withLock { ending } }
}

/// A producer of `count` values: each after an await of `delay` seconds (0: none), its cleanup
/// counted.
private func producer(count: Int, buffer: Int, mode: StackMode, delay: Double, cleanups: EventCounter)
    -> AsyncGenerator<Int, Void, Void>
{
    let body: @Sendable (AsyncYielder<Int, Void>) throws -> Void = { y in
        defer { cleanups.add("cleanup") }
        for i in 0..<count {
            if delay > 0 {
                let r = rj_await(answerLater(0, after: delay))
                if let error = r.error { throw error }
            }
            try y.yield(i)
        }
    }
    if buffer > 0 { return AsyncGenerator(bufferingUpTo: buffer, stackMode: mode, body) }
    return AsyncGenerator(stackMode: mode, body)
}

final class AsyncGeneratorReadersTests: XCTestCase {
    private var stackModes: [StackMode] {
        RJRuntime.sharedStacksAvailable ? [.dedicated, .shared] : [.dedicated]
    }

    /// The values of all readers together: each reader's in order, none twice, and together
    /// every value of the body.
    private func checkEveryValueOnce(_ seen: [Seen], count: Int, _ shape: String, file: StaticString = #filePath, line: UInt = #line) {
        for s in seen { XCTAssertEqual(s.all, s.all.sorted(), "each reader's values in order: \(shape)", file: file, line: line) }
        let all = seen.flatMap(\.all).sorted()
        XCTAssertEqual(all, Array(0..<count), "every value of the body, each once: \(shape)", file: file, line: line)
    }

    // Three Swift tasks read with `for try await` (the test holds the generator too); the first
    // is cancelled: it throws CancellationError at once, the two others read every value left
    // and end normally, nothing is lost, the producer's cleanup runs once. With and without a
    // buffer, both stack modes, the producer awaiting or not.
    func testThreeTaskReadersOneCancelledTheOthersGetEveryValueLeft() async throws {
        for mode in stackModes {
            for buffer in [0, 2] {
                for delay in [0.0, 0.0005] {
                    let shape = "\(mode) buffer \(buffer) delay \(delay)"
                    let cleanups = EventCounter()
                    let count = 1000
                    let gen = producer(count: count, buffer: buffer, mode: mode, delay: delay, cleanups: cleanups)
                    let seen = [Seen(), Seen(), Seen()]
                    let readers = seen.map { s in
                        Task {
                            do {
                                for try await v in gen {
                                    s.add(v)
                                    try? await Task.sleep(for: .microseconds(100))   // the work
                                }
                                s.end("end")
                            } catch {
                                s.end("\(type(of: error))")
                            }
                        }
                    }
                    try await eventually { seen.allSatisfy { $0.all.count >= 3 } }
                    readers[0].cancel()
                    for r in readers { await r.value }
                    XCTAssertEqual(seen.map(\.end), ["CancellationError", "end", "end"], shape)
                    checkEveryValueOnce(seen, count: count, shape)
                    XCTAssertEqual(cleanups["cleanup"], 1, shape)
                    XCTAssertEqual(gen.state, .completed, shape)
                }
            }
        }
    }

    // The same with rj_async readers: cancelling one RJAsyncTask withdraws its read; the others
    // read on to `.returned(())`.
    func testThreeRJAsyncReadersOneCancelledTheOthersGetEveryValueLeft() throws {
        for mode in stackModes {
            for buffer in [0, 2] {
                let shape = "\(mode) buffer \(buffer)"
                let cleanups = EventCounter()
                let count = 200
                let gen = producer(count: count, buffer: buffer, mode: mode, delay: 0.0005, cleanups: cleanups)
                let seen = [Seen(), Seen(), Seen()]
                let finished = DispatchSemaphore(value: 0)
                let tasks = seen.enumerated().map { index, s in
                    rj_async(on: DispatchQueue(label: "reader \(index)")) {
                        do {
                            while case .yielded(let v) = try rj_awaitValue(nextOf: gen) { s.add(v) }
                            s.end("end")
                        } catch {
                            s.end("\(type(of: error))")
                        }
                    }.finally { finished.signal() }
                }
                while !seen.allSatisfy({ $0.all.count >= 3 }) { usleep(200) }
                tasks[0].cancel()
                for _ in tasks { XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, shape) }
                XCTAssertEqual(seen.map(\.end), ["CancellationError", "end", "end"], shape)
                checkEveryValueOnce(seen, count: count, shape)
                XCTAssertEqual(cleanups["cleanup"], 1, shape)
            }
        }
    }

    // A read queued behind the one being served is cancelled: it throws at once; the served one
    // and the one queued behind it get their values, in order; the body is never cancelled.
    func testACancelledQueuedReadIsWithdrawnAndTheOthersKeepTheirPlaces() async throws {
        for mode in stackModes {
            let go = DispatchSemaphore(value: 0)
            let log = Log()
            let g = AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in
                defer { log.add("cleanup") }
                var i = 0
                while true {
                    _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                    try y.yield(i)
                    i += 1
                }
            }
            let first = Task { try await g.next() }                         // served: waits for go
            try await eventually { g.state == .running }
            let second = Task { try await g.next() }                        // queued, then cancelled
            try await eventually { g.storage.state.withLock { $0.waitingCount } == 1 }
            let third = Task { try await g.next() }                         // queued behind it
            try await eventually { g.storage.state.withLock { $0.waitingCount } == 2 }
            second.cancel()
            await XCTAssertThrowsAsync(try await second.value) { XCTAssertTrue($0 is CancellationError) }
            XCTAssertEqual(g.storage.state.withLock { $0.waitingCount }, 1, "\(mode): withdrawn from the queue")
            go.signal()
            await XCTAssertStep(try await first.value, "yielded(0)", "\(mode)")
            go.signal()
            await XCTAssertStep(try await third.value, "yielded(1)", "\(mode)")
            XCTAssertEqual(log.all, [], "\(mode): the body goes on")
            XCTAssertFalse(g.isCancelled)
        }
    }

    // The step being produced for a cancelled reader is not lost: with `Input == Void` it goes
    // to the next read, kept in one slot without resuming the body (no buffer); with another
    // `Input`, it answered that reader's input: dropped, and the next read resumes the body with
    // its own input.
    func testTheStepOfAWithdrawnReadGoesToTheNextReadOrIsDroppedWithItsInput() async throws {
        for mode in stackModes {
            let go = DispatchSemaphore(value: 0)
            let produced = EventCounter()
            let plain = AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in
                var i = 0
                while true {
                    _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                    produced.add("value")
                    try y.yield(i)
                    i += 1
                }
            }
            let reader = Task { try await plain.next() }
            try await eventually { plain.state == .running }
            reader.cancel()
            await XCTAssertThrowsAsync(try await reader.value) { XCTAssertTrue($0 is CancellationError) }
            go.signal()
            try await eventually { plain.state == .suspended }
            XCTAssertEqual(plain.storage.state.withLock { $0.aheadCount }, 1, "\(mode): kept in one slot")
            XCTAssertEqual(produced["value"], 1, "\(mode): the body was not resumed for more")
            await XCTAssertStep(try await plain.next(), "yielded(0)", "\(mode): the next read gets it")
            XCTAssertEqual(produced["value"], 1, "\(mode): answered from the slot")

            let inputs = Log()
            let echo = AsyncGenerator<Int, Int, Void>(stackMode: mode) { y in
                var input = 0
                while true {
                    _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                    input = try y.yield(input * 10)
                    inputs.add("\(input)")
                }
            }
            go.signal()
            await XCTAssertStep(try await echo.next(0), "yielded(0)")
            let sender = Task { try await echo.next(1) }
            try await eventually { echo.state == .running }
            sender.cancel()
            await XCTAssertThrowsAsync(try await sender.value) { XCTAssertTrue($0 is CancellationError) }
            go.signal()                                   // the step for 1: dropped
            try await eventually { echo.state == .suspended }
            XCTAssertEqual(echo.storage.state.withLock { $0.aheadCount }, 0, "\(mode): nothing kept")
            go.signal()
            await XCTAssertStep(try await echo.next(2), "yielded(20)", "\(mode): its own input")
            XCTAssertEqual(inputs.all, ["1", "2"])
        }
    }

    // A reader that comes after the last reader's cancellation ended the body (it reached the
    // generator through a weak reference, after the loop's request was made) sees a normal end,
    // never CancellationError: `.returned(())` for a Void generator.
    func testAReaderThatComesAfterTheLastReadersCancellationSeesTheEnd() async throws {
        // The test looks at the storage (a reference to it is not one to the generator: loading
        // the weak reference to the generator would make a reader for a moment).
        final class Refs: @unchecked Sendable {
            private let lock = NSLock()
            private weak var weakGen: AsyncGenerator<Int, Void, Void>?
            private var strongStorage: AsyncGeneratorStorage<Int, Void, Void>?
            var gen: AsyncGenerator<Int, Void, Void>? {
                get { lock.withLock { weakGen } }
                set { lock.withLock { weakGen = newValue } }
            }
            var storage: AsyncGeneratorStorage<Int, Void, Void>? {
                get { lock.withLock { strongStorage } }
                set { lock.withLock { strongStorage = newValue } }
            }
        }
        let refs = Refs()
        let go = DispatchSemaphore(value: 0)
        @Sendable func make() -> AsyncGenerator<Int, Void, Void> {
            let gen = AsyncGenerator<Int, Void, Void> { y in
                _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                try y.yield(1)
            }
            refs.gen = gen
            refs.storage = gen.storage
            return gen
        }
        // The loop's iterator holds the only reference (a `let` holding it too would be another).
        let loop = Task { for try await _ in make() {} }
        // Until the loop waits for its read (its continuation is in the machine).
        try await eventually {
            refs.storage?.state.withLock { m in
                if case .running(let turn) = m.body, case .request(let r) = turn.serving, case .task = r.waiter { return true }
                return false
            } ?? false
        }
        let late = refs.gen!
        loop.cancel()
        await XCTAssertThrowsAsync(try await loop.value) { XCTAssertTrue($0 is CancellationError) }
        go.signal()
        await XCTAssertStep(try await late.next(), "returned()")
        XCTAssertTrue(late.isCancelled)
    }

    // Issue 43, 1: `return` on a buffered generator running ahead: nothing it produced comes
    // out after the return's answer (the value in production is dropped with the buffer).
    func testReturnOnAGeneratorRunningAheadLetsNoValueOutAfterIt() async throws {
        for mode in stackModes {
            let log = Log()
            let g = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 2, stackMode: mode) { y in
                defer { log.add("cleanup") }
                for i in 0..<100 {
                    _ = try rj_awaitValue { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in
                        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) { done(i, nil) }
                    }
                    try y.yield(i)
                }
            }
            await XCTAssertStep(try await g.next(), "yielded(0)")
            try await Task.sleep(for: .milliseconds(30))     // 1 buffered, 2 in production
            await XCTAssertStep(try await g.return(()), "returned()")
            XCTAssertEqual(log.all, ["cleanup"], "the cleanup ran before the return's answer")
            await XCTAssertStep(try await g.next(), "returned()", "\(mode): nothing after the return")
        }
    }

    // Issue 52, 2: the same on a buffered generator that ran ahead to its end: the values it
    // kept are dropped by the return too (they came out after it).
    func testReturnOnABufferedGeneratorThatRanAheadToItsEndLetsNoValueOut() async throws {
        for mode in stackModes {
            let g = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 3, stackMode: mode) { y in for i in 0..<3 { try y.yield(i) } }
            await XCTAssertStep(try await g.next(), "yielded(0)")
            try await eventually { g.state == .completed }
            await XCTAssertStep(try await g.return(()), "returned()")
            await XCTAssertStep(try await g.next(), "returned()", "\(mode)")
            await XCTAssertStep(try await g.next(), "returned()", "\(mode)")
            let thrown = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 3, stackMode: mode) { y in for i in 0..<3 { try y.yield(i) } }
            _ = try await thrown.next()
            try await eventually { thrown.state == .completed }
            await XCTAssertThrowsAsync(try await thrown.throw(CancellationError())) { XCTAssertTrue($0 is CancellationError) }
            await XCTAssertStep(try await thrown.next(), "returned()", "\(mode): nothing after the throw")
        }
    }

    // Issue 43, 1, the hole: a reader waiting for the next value while `return` comes gets that
    // value (its place is before the return) and the values it saw are a prefix, no hole.
    func testAReaderWaitingBeforeAReturnSeesNoHole() async throws {
        for mode in stackModes {
            for _ in 0..<5 {
                let g = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 2, stackMode: mode) { y in
                    for i in 0..<1000 {
                        _ = rj_await(answerLater(i, after: 0.001))
                        try y.yield(i)
                    }
                }
                let seen = Seen()
                let reader = Task {
                    while case .yielded(let v) = try await g.next() { seen.add(v) }
                    seen.end("end")
                }
                try await eventually { seen.all.count >= 10 }
                await XCTAssertStep(try await g.return(()), "returned()")
                try await reader.value
                XCTAssertEqual(seen.all, Array(0..<seen.all.count), "\(mode): a prefix of the body's values, no hole")
                XCTAssertEqual(seen.end, "end")
            }
        }
    }
}
