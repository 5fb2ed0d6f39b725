import Foundation
import XCTest

import RJLocks

/// State guarded by the lock, bumped from several threads. Under ThreadSanitizer (CI runs the
/// suite with it) an unannotated lock makes every access here a reported race.
private final class Counter: @unchecked Sendable {
    let lock: RJLock
    var count = 0
    var log: [Int] = []

    init(recursive: Bool) {
        lock = RJLock(recursive: recursive)
    }
}

final class RJLockTests: XCTestCase {
    func testLockSerialisesThreads() {
        let counter = Counter(recursive: false)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<2_000 {
                counter.lock.withLock {
                    counter.count += 1
                    if i % 500 == 0 { counter.log.append(worker) }
                }
            }
        }
        XCTAssertEqual(counter.lock.withLock { counter.count }, 16_000)
        XCTAssertEqual(counter.lock.withLock { counter.log.count }, 32)
    }

    func testRecursiveLockIsReenteredByItsHolderOnly() {
        let counter = Counter(recursive: true)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<1_000 {
                counter.lock.withLock {
                    counter.lock.withLock { counter.count += 1 }   // the holder takes it again
                    counter.count += 1
                }
            }
        }
        XCTAssertEqual(counter.lock.withLock { counter.count }, 8_000)
    }

    func testLockedValueIsOnlyReachableUnderItsLock() {
        let box = RJLockedValue([Int]())
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<500 { box.withLockedValue { $0.append(worker * 1_000 + i) } }
        }
        XCTAssertEqual(box.withLockedValue { Set($0).count }, 2_000)
    }

    func testWithLockRethrowsAndReleases() {
        struct Boom: Error {}
        let counter = Counter(recursive: false)
        XCTAssertThrowsError(try counter.lock.withLock { throw Boom() })
        XCTAssertEqual(counter.lock.withLock { 7 }, 7, "the lock was released by the throw")
    }

    /// CI builds the suite twice: with Synchronization's lock and atomics, and with the portable
    /// ones Apple platforms use (`-DRJ_NO_SYNCHRONIZATION`); it says which one it expects.
    func testTheExpectedImplementationIsBuilt() throws {
        guard let expected = ProcessInfo.processInfo.environment["RJ_EXPECT_LOCKS"] else {
            throw XCTSkip("RJ_EXPECT_LOCKS not set")
        }
        XCTAssertEqual(RJLock.isPortable ? "portable" : "synchronization", expected)
    }

    /// Every operation of the atomic word, from several threads, with a value type of its own.
    func testAtomicOperations() {
        let counter = RJAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.add(1, ordering: .relaxed) }
        }
        XCTAssertEqual(counter.load(ordering: .acquiring), 80_000)
        XCTAssertEqual(counter.add(-80_001, ordering: .relaxed).newValue, -1)
        XCTAssertEqual(counter.exchange(5, ordering: .acquiringAndReleasing), -1)
        XCTAssertEqual(counter.compareExchange(expected: 4, desired: 9, ordering: .acquiringAndReleasing).exchanged, false)
        let swapped = counter.compareExchange(expected: 5, desired: 9, ordering: .acquiringAndReleasing)
        XCTAssertTrue(swapped.exchanged)
        XCTAssertEqual(swapped.original, 5)
        counter.store(2, ordering: .releasing)
        XCTAssertEqual(counter.load(ordering: .relaxed), 2)

        let flag = RJAtomic<Bool>(false)
        let winners = RJAtomic<UInt64>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if !flag.exchange(true, ordering: .acquiringAndReleasing) { winners.add(1, ordering: .relaxed) }
        }
        XCTAssertEqual(winners.load(ordering: .relaxed), 1, "exactly one thread saw false")
        XCTAssertEqual(RJAtomic<UInt64>(UInt64.max).add(1, ordering: .relaxed).newValue, 0, "wraps")
    }
}
