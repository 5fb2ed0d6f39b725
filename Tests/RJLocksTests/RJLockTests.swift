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

/// A value for RJHintedMutex: a counter and a door whose two states the word may carry.
private struct Door: RJHintedValue {
    var open = false
    var count = 0
    mutating func absorbHint(_ hint: UInt32) { open = hint == 2 }
    var hintToLeave: UInt32 { open ? 2 : 1 }
}

private final class Guarded: @unchecked Sendable {
    let mutex = RJMutex([Int]())
    let hinted = RJHintedMutex(Door())
}

final class RJMutexTests: XCTestCase {
    // Eight threads, 2,000 appends each: none lost (a lost update would show under contention,
    // where the futex word's slow halves run).
    func testMutexSerialisesThreads() {
        let g = Guarded()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<2_000 { g.mutex.withLock { $0.append(worker * 10_000 + i) } }
        }
        XCTAssertEqual(g.mutex.withLock { Set($0).count }, 16_000)
    }

    func testMutexRethrowsAndReleases() {
        struct Boom: Error {}
        let g = Guarded()
        XCTAssertThrowsError(try g.mutex.withLock { _ in throw Boom() })
        XCTAssertEqual(g.mutex.withLock { $0.count }, 0, "the lock was released by the throw")
    }

    // The hint moves without the lock, the value sees it under the lock, and both agree under
    // contention: threads flip the door with fast transitions while others count under the lock.
    func testHintedMutexTransitionsAndTheValueAgree() {
        let g = Guarded()
        XCTAssertTrue(g.hinted.carries(1), "closed, as the value says")
        XCTAssertTrue(g.hinted.transition(from: 1, to: 2))
        XCTAssertFalse(g.hinted.transition(from: 1, to: 2), "it carries 2 now")
        XCTAssertTrue(g.hinted.withLock { $0.open }, "the value absorbed the hint")
        XCTAssertTrue(g.hinted.carries(2), "and left it again")
        g.hinted.withLock { $0.open = false }
        XCTAssertTrue(g.hinted.carries(1))

        let flips = RJAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for _ in 0..<3_000 {
                if worker % 2 == 0 {
                    if g.hinted.transition(from: 1, to: 2) {
                        flips.add(1, ordering: .relaxed)
                        while !g.hinted.transition(from: 2, to: 1) {
                            // Someone holds the lock: the hint comes back when it lets go.
                        }
                    }
                } else {
                    g.hinted.withLock { door in
                        door.count += 1
                        XCTAssertTrue(door.hintToLeave == 1 || door.hintToLeave == 2)
                    }
                }
            }
        }
        XCTAssertEqual(g.hinted.withLock { $0.count }, 9_000)
        XCTAssertGreaterThan(flips.load(ordering: .relaxed), 0)
        XCTAssertFalse(g.hinted.withLock { $0.open }, "every flip was closed again")
    }
}
