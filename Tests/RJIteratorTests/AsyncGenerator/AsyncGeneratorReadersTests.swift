import Foundation
import XCTest

@testable import RJIterator

// Several readers of one async generator, and the cancellation of one of them (issue 39, and
// issue 43's two bugs). The rule (docs/async-generators.md, "Several readers"): the generator
// ends with a reader whose task is cancelled, at that reader's place; that reader's request
// throws CancellationError; every other reader gets the values before that place, then the
// end, never CancellationError. Python ends the generator with the cancelled reader, the others
// see StopAsyncIteration; AsyncStream finishes for every reader.

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

/// An endless producer: each value after an await of `delay` seconds (0: none), its cleanup
/// counted.
private func producer(buffer: Int, mode: StackMode, delay: Double, cleanups: EventCounter) -> AsyncGenerator<Int, Void, Void> {
    let body: @Sendable (AsyncYielder<Int, Void>) throws -> Void = { y in
        defer { cleanups.add("cleanup") }
        var i = 0
        while true {
            if delay > 0 {
                let r = rj_await(answerLater(0, after: delay))
                if let error = r.error { throw error }
            }
            try y.yield(i)
            i += 1
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
    /// the first values of the body, without a hole.
    private func checkShared(_ seen: [Seen], _ shape: String, file: StaticString = #filePath, line: UInt = #line) {
        for s in seen { XCTAssertEqual(s.all, s.all.sorted(), "each reader's values in order: \(shape)", file: file, line: line) }
        let all = seen.flatMap(\.all).sorted()
        XCTAssertEqual(all, Array(0..<all.count), "the values of all readers are the body's first ones, each once: \(shape)",
                       file: file, line: line)
    }

    // Three Swift tasks read with `for try await`; the first is cancelled: it throws
    // CancellationError, the two others end normally, the producer's cleanup runs once. With and
    // without a buffer, both stack modes, the producer awaiting or not.
    func testThreeTaskReadersOneCancelledTheOthersSeeTheEnd() async throws {
        for mode in stackModes {
            for buffer in [0, 2] {
                for delay in [0.0, 0.0005] {
                    let shape = "\(mode) buffer \(buffer) delay \(delay)"
                    let cleanups = EventCounter()
                    let gen = producer(buffer: buffer, mode: mode, delay: delay, cleanups: cleanups)
                    let seen = [Seen(), Seen(), Seen()]
                    let readers = seen.map { s in
                        Task {
                            do {
                                for try await v in gen {
                                    s.add(v)
                                    await Task.yield()
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
                    XCTAssertEqual(seen[0].end, "CancellationError", shape)
                    XCTAssertEqual(seen[1].end, "end", shape)
                    XCTAssertEqual(seen[2].end, "end", shape)
                    checkShared(seen, shape)
                    try await eventually { cleanups["cleanup"] == 1 }
                    XCTAssertEqual(cleanups["cleanup"], 1, shape)
                    XCTAssertEqual(gen.state, .completed, shape)
                }
            }
        }
    }

    // The same with rj_async readers: cancelling one RJAsyncTask cancels its request; the
    // others' loops end with `.returned(())`, the normal end of a Void generator.
    func testThreeRJAsyncReadersOneCancelledTheOthersSeeTheEnd() throws {
        for mode in stackModes {
            for buffer in [0, 2] {
                let shape = "\(mode) buffer \(buffer)"
                let cleanups = EventCounter()
                let gen = producer(buffer: buffer, mode: mode, delay: 0.0005, cleanups: cleanups)
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
                checkShared(seen, shape)
                XCTAssertEqual(cleanups["cleanup"], 1, shape)
            }
        }
    }

    // Issue 43, 2: a task cancelled already asks; the reader that was never cancelled gets the
    // end, not CancellationError: `.returned(())` for a Void generator, GeneratorError.closed
    // for one with a return value (a `for try await` loop ends on it).
    func testARequestFromACancelledTaskEndsTheGeneratorForTheOthersNormally() async throws {
        for mode in stackModes {
            let g = AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in for i in 0..<3 { try y.yield(i) } }
            await XCTAssertStep(try await g.next(), "yielded(0)")
            let cancelled = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                do { return "\(try await g.next())" } catch { return "\(type(of: error))" }
            }.value
            XCTAssertEqual(cancelled, "CancellationError")
            await XCTAssertStep(try await g.next(), "returned()", "\(mode)")

            let withValue = AsyncGenerator<Int, Void, String>(stackMode: mode) { y in
                for i in 0..<3 { try y.yield(i) }
                return "done"
            }
            _ = try await withValue.next()
            await Task { withUnsafeCurrentTask { $0?.cancel() }; _ = try? await withValue.next() }.value
            await XCTAssertThrowsAsync(try await withValue.next()) { XCTAssertEqual($0 as? GeneratorError, .closed) }
            var rest: [Int] = []
            for try await v in withValue { rest.append(v) }
            XCTAssertEqual(rest, [], "a for-in over it ends")
        }
    }

    // A reader that was not cancelled, queued behind the one being served when another reader
    // is cancelled while queued: it gets its value (its place came first), the generator ends
    // at the cancelled one's place, readers after it see the end.
    func testACancellationTakesEffectAtItsPlaceInTheQueue() async throws {
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
            XCTAssertEqual(log.all, [], "the generator goes on for the request before the cancelled one")
            go.signal()
            await XCTAssertStep(try await first.value, "yielded(0)", "\(mode)")
            await XCTAssertStep(try await third.value, "returned()", "\(mode): the end, after the cancelled place")
            XCTAssertEqual(log.all, ["cleanup"])
        }
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

