import Foundation
import XCTest

import RJIterator

// `for try await` over an AsyncGenerator from isolated code. The iterator's `next(isolation:)`
// is `nonisolated(nonsending)` (it runs on the caller's executor, as the protocol's `isolated`
// parameter would, without that parameter's executor switch on every element): the loop stays
// on its actor whether the element comes at once or after the body awaited on another queue.
// (The stdlib's AsyncStream iterator keeps the caller's isolation too, SE-0421.)

/// Collects a generator's elements in actor state: the loop's body touches the actor's own
/// storage between elements, which only compiles, and only passes the check, on the actor.
actor ElementCollector {
    private(set) var values: [Int] = []

    func collect(_ gen: AsyncGenerator<Int, Void, Void>) async throws {
        for try await x in gen {
            assertIsolated("the loop left the actor")
            values.append(x)
        }
    }

    /// Through the protocol, as generic code sees the iterator.
    func collectGenerically<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] where S.Element == Int {
        var all: [S.Element] = []
        for try await x in sequence {
            assertIsolated("the loop left the actor")
            all.append(x)
        }
        return all
    }
}

/// A body that yields at once, awaits work on another queue, and yields again: both the fast
/// path (answered on the caller's thread) and the slow one (answered later) are taken.
private func mixedElements() -> AsyncGenerator<Int, Void, Void> {
    AsyncGenerator<Int, Void, Void> { y in
        for i in 0..<4 {
            try y.yield(i * 10)
            let r = rj_await(answerLater(i * 10 + 5))
            try y.yield(r.value as! Int)
        }
    }
}

private let mixedExpected = [0, 5, 10, 15, 20, 25, 30, 35]

final class AsyncGeneratorIsolationTests: XCTestCase {
    func testAForTryAwaitInAnActorStaysOnTheActorForEveryElement() async throws {
        let collector = ElementCollector()
        try await collector.collect(mixedElements())
        let values = await collector.values
        XCTAssertEqual(values, mixedExpected)
    }

    func testGenericCodeIteratingFromAnActorGetsTheSameElements() async throws {
        let collector = ElementCollector()
        let values = try await collector.collectGenerically(mixedElements())
        XCTAssertEqual(values, mixedExpected)
    }

    /// The body's part up to its first yield runs inside the first `next`, on the caller's
    /// thread: no hop off the main actor to a pool thread and back (which a plain `async`
    /// `next` would make).
    @MainActor
    func testABodyThatDoesNotAwaitRunsOnTheMainActorsThread() async throws {
        let bodyThreads = LockedBox<[Bool]>([])
        let gen = AsyncGenerator<Int, Void, Void> { y in
            for i in 0..<3 {
                bodyThreads.value.append(Thread.isMainThread)
                try y.yield(i)
            }
        }
        var values: [Int] = []
        for try await x in gen { values.append(x) }
        XCTAssertEqual(values, [0, 1, 2])
        XCTAssertEqual(bodyThreads.value, [true, true, true])
    }

    @MainActor
    func testAForTryAwaitOnTheMainActorStaysOnTheMainActor() async throws {
        var values: [Int] = []
        for try await x in mixedElements() {
            MainActor.assertIsolated("the loop left the main actor")
            XCTAssertTrue(Thread.isMainThread, "a main-actor loop runs on the main thread")
            values.append(x)
        }
        XCTAssertEqual(values, mixedExpected)
    }

    func testNextWithAnIsolationGivenExplicitly() async throws {
        let gen = mixedElements()
        var it = gen.makeAsyncIterator()
        var values: [Int] = []
        while let x = try await it.next(isolation: nil) { values.append(x) }
        XCTAssertEqual(values, mixedExpected)
        let after = try await it.next(isolation: nil)
        XCTAssertNil(after, "an ended iterator keeps giving nil")
    }
}
