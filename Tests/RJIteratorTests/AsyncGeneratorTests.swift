import Foundation
import XCTest

@testable import RJIterator
import RJPromises

/// A callback that answers `value` on another queue after `delay` seconds.
private func later<T: Sendable>(_ value: T, after delay: Double = 0.001) -> RJAsyncClosure {
    { callback in DispatchQueue.global().asyncAfter(deadline: .now() + delay) { callback(value, nil) } }
}

final class AsyncGeneratorTests: XCTestCase {
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
        XCTAssertEqual(last, .returned("done"))
    }

    func testBodyWithoutAwaitsRunsOnTheCallersThread() async throws {
        let gen = AsyncGenerator<Int, Int, Void> { y in
            var total = 0
            while true { total += try y.yield(total) }
        }
        var steps: [Int?] = []
        for input in [0, 5, 7] { steps.append(try await gen.next(input).yieldedValue) }
        XCTAssertEqual(steps, [0, 5, 12])
    }

    func testRequestsFromManyTasksAreServedInOrderOneEach() async throws {
        let gen = AsyncGenerator<Int, Void, Void> { y in
            var i = 0
            while true {
                _ = rj_await(later(0, after: 0.0001))
                try y.yield(i)
                i += 1
            }
        }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await gen.next().yieldedValue! }
            }
            var all: [Int] = []
            for try await v in group { all.append(v) }
            return all
        }
        XCTAssertEqual(values.sorted(), Array(0..<100), "100 distinct values, none lost")
    }

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

    func testCancellingTheConsumerStopsTheProducerAndRunsItsCleanups() async throws {
        let log = Log()
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer { log.add("cleanup") }
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
        do {
            _ = try await consumer.value
            XCTFail("the loop should throw")
        } catch is CancellationError {}
        for _ in 0..<100 where !log.all.contains("cleanup") { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(log.all, ["await: CancellationError", "cleanup"])
        XCTAssertEqual(gen.state, .completed)
    }

    func testReleaseOfASuspendedGeneratorClosesItsBody() async throws {
        let log = Log()
        do {
            let gen = AsyncGenerator<Int, Void, Void> { y in
                defer { log.add("closed") }
                try y.yield(1)
                try y.yield(2)
            }
            let first = try await gen.next().yieldedValue
            XCTAssertEqual(first, 1)
        }
        XCTAssertEqual(log.all, ["closed"])
    }

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
}
