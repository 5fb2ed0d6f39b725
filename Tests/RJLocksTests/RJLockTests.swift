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
}
