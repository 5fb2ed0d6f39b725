import Foundation
import XCTest

@testable import RJIterator
import RJPromises

// AsyncGenerator, row by row of docs/async-generators.md's table: each test names the
// behaviour, with ES2018's (checked with node) and Python's (PEP 525, checked with CPython
// 3.11) in a comment.

final class AsyncGeneratorBufferTests: XCTestCase {
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
                if i % 3 == 0 { _ = rj_await(answerLater(0, after: 0.0001)) }
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

    // What the body produced ahead goes out in order to every kind of consumer: an rj_async
    // body's rj_await(nextOf:) takes the buffered values first (before issue 30's review it
    // took the generator directly and got the value after them).
    func testRJAwaitOfABufferedGeneratorTakesTheBufferedValuesFirst() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void>(bufferingUpTo: 2) { y in
            for i in 1...10 {
                log.add("\(i)")
                try y.yield(i)
            }
        }
        let first = try await gen.next().yieldedValue
        XCTAssertEqual(first, 1)
        try await eventually { log.all.count >= 3 && gen.state == .suspended }
        let seen = Log()
        let done = DispatchSemaphore(value: 0)
        rj_async(on: DispatchQueue(label: "consumer")) {
            for _ in 0..<3 { seen.add("\(rj_await(nextOf: gen).value as? Int ?? -1)") }
        }.finally { done.signal() }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { done.wait(); c.resume() }
        }
        XCTAssertEqual(seen.all, ["2", "3", "4"])
    }

    // The consumer takes its value and drops the generator while the body, resumed from an
    // await, goes on producing ahead to its end: the end still goes into the buffer (the answer
    // that fills it held the generator unowned, and read it after its last release).
    func testABufferedBodyRunningAheadOutlivesItsLastConsumer() async throws {
        let ended = EventCounter()
        for _ in 0..<200 {
            var gen: AsyncGenerator<Int, Void, Int>? = AsyncGenerator(bufferingUpTo: 2) { y in
                _ = rj_await(answerLater(0, after: 0.0001))
                try y.yield(1)
                defer { ended.add("ended") }
                return 7
            }
            let first = try await gen!.next()
            XCTAssertEqual(first, .yielded(1))
            gen = nil
        }
        try await eventually { ended["ended"] == 200 }
        XCTAssertEqual(ended["ended"], 200)
    }
}
