import Dispatch
import Foundation
import XCTest

@testable import RJPromises

final class PromiseLifetimeTests: PromiseTestCase {
    func testUnreferencedPendingPromiseIsFreed() {
        weak var weakPromise: Promise<Int>?
        weak var weakDerived: Promise<Int>?
        do {
            let p = Promise<Int>.pending()
            let d = p.then { $0 + 1 }
            weakPromise = p
            weakDerived = d
        }
        XCTAssertNil(weakPromise)
        XCTAssertNil(weakDerived)
    }

    func testChainStaysAliveUntilTheSourceSettlesThenIsFreed() {
        let source = Promise<Int>.pending()
        weak var weakLast: Promise<Int>?
        let ran = Recorder<Int>()
        do {
            let last = source.then { $0 + 1 }.then { $0 * 2 }
            last.then { ran.add($0) }
            weakLast = last
        }
        XCTAssertNotNil(weakLast, "the pending source keeps its chain")
        source.fulfill(1)
        let done = expectation(description: "ran")
        DispatchQueue.global().async {
            while ran.all.isEmpty { usleep(1000) }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        drain()
        XCTAssertEqual(ran.all, [4])
        // Every block has run; nothing keeps the chain now. (The queue that ran the last block
        // may still be releasing it: give it a moment.)
        for _ in 0..<500 where weakLast != nil { usleep(1000) }
        XCTAssertNil(weakLast)
    }

    func testAsyncInitKeepsPromiseAliveWhileWorkHoldsFulfill() {
        final class Keep: @unchecked Sendable { var fulfill: (@Sendable (Int) -> Void)? }
        let keep = Keep()
        weak var weakPromise: Promise<Int>?
        do {
            let p = Promise<Int>(on: queue) { fulfill, _ in keep.fulfill = fulfill }
            weakPromise = p
        }
        drain()
        XCTAssertNotNil(weakPromise)
        keep.fulfill?(1)
        keep.fulfill = nil
        drain()
        XCTAssertNil(weakPromise)
    }

    func testManyObserversFromManyThreadsEachRunOnce() {
        let p = Promise<Int>.pending()
        let count = 4_000
        let counter = Recorder<Int>()
        let registered = DispatchGroup()
        let observersDone = DispatchGroup()
        for t in 0..<4 {
            registered.enter()
            DispatchQueue.global().async {
                for i in 0..<(count / 4) {
                    observersDone.enter()
                    p.then(on: .global()) { _ in
                        counter.add(t * count + i)
                        observersDone.leave()
                    }
                    if t == 0 && i == count / 8 {
                        DispatchQueue.global().async { p.fulfill(1) }
                    }
                }
                registered.leave()
            }
        }
        registered.wait()
        XCTAssertEqual(observersDone.wait(timeout: .now() + 20), .success)
        let all = counter.all
        XCTAssertEqual(all.count, count)
        XCTAssertEqual(Set(all).count, count, "every observer ran exactly once")
    }

    func testLongChainDoesNotOverflowTheStack() {
        let head = Promise<Int>.pending()
        var tail = head
        for _ in 0..<100_000 {
            tail = tail.then(on: queue) { $0 + 1 }
        }
        head.fulfill(0)
        XCTAssertEqual(try? tail.awaitPromise(), 100_000)
    }

    func testLongAdoptionChainDoesNotOverflowTheStack() {
        // Each step adopts the next: settling the innermost settles 100,000 promises at once.
        let innermost = Promise<Int>.pending()
        var outer = innermost
        for _ in 0..<100_000 {
            let adopter = Promise<Int>(settled: nil)
            adopter.adopt(outer)
            outer = adopter
        }
        innermost.fulfill(5)
        XCTAssertEqual(outer.fulfilledValue, 5)
    }

    func testDroppingALongPendingChainDoesNotOverflowTheStack() {
        weak var weakHead: Promise<Int>?
        do {
            let head = Promise<Int>.pending()
            var tail = head
            for _ in 0..<100_000 { tail = tail.then { $0 + 1 } }
            weakHead = head
        }
        XCTAssertNil(weakHead)
    }
}
