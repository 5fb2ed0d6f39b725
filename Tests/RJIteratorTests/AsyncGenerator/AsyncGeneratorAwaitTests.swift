import Foundation
import XCTest

@testable import RJIterator
import RJPromises

// AsyncGenerator, row by row of docs/async-generators.md's table: each test names the
// behaviour, with ES2018's (checked with node) and Python's (PEP 525, checked with CPython
// 3.11) in a comment.

final class AsyncGeneratorAwaitTests: XCTestCase {
    // MARK: From rj_async and other async generators

    func testAnRJAsyncBodyConsumesAnAsyncGenerator() throws {
        let gen = AsyncGenerator<Int, Void, String> { y in
            for i in 1...3 {
                _ = rj_await(answerLater(i))
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

    // Issue 52: cancelling the RJAsyncTask withdraws its read at once (it gets
    // CancellationError, the producer goes on: the test still holds it); the release of the
    // last reference then closes the producer, whose pending await gives CancellationError.
    func testCancellingTheRJAsyncConsumerWithdrawsItsReadAndTheReleaseClosesTheProducer() throws {
        let log = Log()
        var gen: AsyncGenerator<Int, Void, Void>? = AsyncGenerator<Int, Void, Void> { y in
            defer { log.add("producer closed") }
            while true {
                let r = rj_await(answerLater(0, after: 0.05))
                if let error = r.error { throw error }
                try y.yield(0)
            }
        }
        let task = rj_async(on: DispatchQueue(label: "consumer")) { [reader = gen!] in
            let r = rj_await(nextOf: reader)
            log.add("consumer got \(r.error.map { "\(type(of: $0))" } ?? "a value")")
        }
        let done = expectation(description: "done")
        task.finally { done.fulfill() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { task.cancel() }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.all, ["consumer got CancellationError"], "answered at once, the producer goes on")
        XCTAssertEqual(gen?.isCancelled, false)
        gen = nil
        let closed = expectation(description: "closed")
        DispatchQueue.global().async {
            for _ in 0..<500 where !log.all.contains("producer closed") { usleep(10_000) }
            closed.fulfill()
        }
        wait(for: [closed], timeout: 6)
        XCTAssertEqual(log.all, ["consumer got CancellationError", "producer closed"])
    }

    func testTypedAwaitOfTheNextStepWithInputs() throws {
        let doubler = AsyncGenerator<Int, Int, Void> { y in
            var x = 0
            while true {
                _ = rj_await(answerLater(0))
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
            _ = rj_await(answerLater(0))
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
                        _ = rj_await(answerLater(0, after: 0.0005))
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
