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

    /// A block attached to a promise keeps it alive until the block has read its outcome (one
    /// reference taken when the block is dispatched, given back when it reads), then lets it go:
    /// attached before and after the settling, through every kind of operator.
    func testEveryObservedPromiseIsFreedOnceItsBlocksRan() {
        func check(_ name: String, settleFirst: Bool, _ attach: (Promise<Int>) -> Promise<Int>) {
            weak var weakSource: Promise<Int>?
            weak var weakDerived: Promise<Int>?
            var outcome: Result<Int, any Error>?
            do {
                let source = Promise<Int>.pending()
                weakSource = source
                if settleFirst { source.fulfill(1) }
                let derived = attach(source)
                weakDerived = derived
                if !settleFirst { source.fulfill(1) }
                outcome = settle(derived)
            }
            XCTAssertNotNil(outcome, name)
            for _ in 0..<5_000 where weakSource != nil || weakDerived != nil { usleep(1000) }
            XCTAssertNil(weakSource, "\(name): the source was kept (settled first: \(settleFirst))")
            XCTAssertNil(weakDerived, "\(name): the derived promise was kept (settled first: \(settleFirst))")
        }
        for settleFirst in [false, true] {
            check("then", settleFirst: settleFirst) { $0.then(on: self.queue) { $0 + 1 } }
            check("then Void", settleFirst: settleFirst) { $0.then(on: self.queue) { _ in } }
            check("catch", settleFirst: settleFirst) { $0.catch(on: self.queue) { _ in } }
            check("finally", settleFirst: settleFirst) { $0.finally(on: self.queue) {} }
            check("recover", settleFirst: settleFirst) { $0.recover(on: self.queue) { _ in 0 } }
            check("timeout", settleFirst: settleFirst) { $0.timeout(on: self.queue, 5) }
            check("race", settleFirst: settleFirst) { Promises.race(on: self.queue, [$0, Promise<Int>.pending()]) }
        }
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
        for _ in 0..<5_000 where weakLast != nil { usleep(1000) }
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
