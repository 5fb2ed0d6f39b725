import Dispatch
import Foundation
import XCTest

@testable import RJNodes

final class NodeListenerTests: XCTestCase {
    func testNewListenerGetsTheCurrentValueAtOnceAndNothingWhenEmpty() {
        let owner = Owner()
        let printed = Printed()
        MutableNode(5).listenedBy(owner).withBlock { printed.print("a \($0)") }
        MutableNode<Int>().listenedBy(owner).withBlock { printed.print("b \($0)") }
        XCTAssertEqual(printed.all, ["a 5"])
    }

    func testDeliveryOrderIsTheOrderListenersAndTransformsWereAdded() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode<Int>()
        a.listenedBy(owner).withBlock { printed.print("first \($0)") }
        a.map { $0 + 100 }.listenedBy(owner).withBlock { printed.print("map \($0)") }
        a.listenedBy(owner).withBlock { printed.print("last \($0)") }
        a.value = 1
        XCTAssertEqual(printed.all, ["first 1", "map 101", "last 1"])
    }

    func testChainWithNothingStoredKeepsWorkingWhileTheOwnerLives() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode(0)
        a.map { $0 * 2 }.filter { $0 > 2 }.listenedBy(owner).withBlock { printed.print("\($0)") }
        for i in 1...3 { a.value = i }
        XCTAssertEqual(printed.all, ["4", "6"])
    }

    func testDeadOwnersBlocksAreNeverCalledAndItsChainIsFreed() {
        let printed = Printed()
        let a = MutableNode(0)
        weak var weakMapped: Node<Int>?
        do {
            let owner = Owner()
            let mapped = a.map { $0 * 2 }
            weakMapped = mapped
            mapped.listenedBy(owner).withBlock { printed.print("\($0)") }
            a.value = 1
        }
        XCTAssertNotNil(weakMapped, "the listener keeps its chain until it notices")
        a.value = 2
        XCTAssertEqual(printed.all, ["0", "2"], "never called once the owner is gone")
        XCTAssertNil(weakMapped, "the chain only the owner kept is freed")
    }

    func testRegisteringSweepsListenersOfDeadOwners() {
        let a = MutableNode(0)
        weak var weakMapped: Node<Int>?
        do {
            let owner = Owner()
            let mapped = a.map { $0 + 1 }
            weakMapped = mapped
            mapped.listenedBy(owner).withBlock { _ in }
        }
        let other = Owner()
        MutableNode(1).listenedBy(other).withBlock { _ in }
        XCTAssertNil(weakMapped)
    }

    func testCancelStopsDeliveryEvenFromInsideTheBlock() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode<Int>()
        final class Box: @unchecked Sendable { var listening: (any Cancelable)? }
        let box = Box()
        box.listening = a.listenedBy(owner).withBlock { value in
            printed.print("\(value)")
            if value == 2 { box.listening?.cancel() }
        }
        for i in 1...4 { a.value = i }
        XCTAssertEqual(printed.all, ["1", "2"])
        let other = a.listenedBy(owner).withBlock { printed.print("other \($0)") }
        other.cancel()
        other.cancel()
        a.value = 5
        XCTAssertEqual(printed.all, ["1", "2", "other 4"])
    }

    func testDerivedNodeWithoutListenersIsFreedAndTheSourceDoesNotKeepIt() {
        let a = MutableNode(1)
        weak var weakB: Node<String>?
        do {
            let b = a.map { "\($0)" }
            weakB = b
            XCTAssertEqual(b.value, "1")
        }
        XCTAssertNil(weakB)
        a.value = 2  // no stale edge left behind
        XCTAssertEqual(a.edgeCount, 0)
    }

    func testDerivedNodeKeepsItsSourceAlive() {
        weak var weakSource: MutableNode<Int>?
        let derived: Node<Int>
        do {
            let source = MutableNode(3)
            weakSource = source
            derived = source.map { $0 + 1 }
        }
        XCTAssertNotNil(weakSource)
        XCTAssertEqual(derived.value, 4)
    }

    func testWithBlockOnQueue() {
        let owner = Owner()
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "listener.queue")
        queue.setSpecific(key: key, value: 7)
        let printed = Printed()
        let a = MutableNode(1)
        let done = expectation(description: "delivered")
        a.listenedBy(owner).withBlock(on: queue) { value in
            printed.print("\(value) on \(DispatchQueue.getSpecific(key: key) ?? 0)")
            if value == 2 { done.fulfill() }
        }
        a.value = 2
        wait(for: [done], timeout: 5)
        XCTAssertEqual(printed.all, ["1 on 7", "2 on 7"])
    }

    func testReentrantSetFromAListenerIsDeliveredInOrder() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode<Int>()
        a.listenedBy(owner).withBlock { value in
            printed.print("first \(value)")
            if value < 3 { a.value = value + 1 }
        }
        a.listenedBy(owner).withBlock { printed.print("second \($0)") }
        a.value = 1
        XCTAssertEqual(printed.all, ["first 1", "second 1", "first 2", "second 2", "first 3", "second 3"])
        XCTAssertEqual(a.value, 3)
    }

    func testSetsFromManyThreadsNeverCorruptOrLoseListeners() {
        let owner = Owner()
        let a = MutableNode(0)
        let sum = a.scan(start: 0) { $0 + $1 }
        let counter = Printed()
        let threads = 4
        let perThread = 2_000
        let listened = DispatchGroup()
        // Listeners are added while values are being set from other threads.
        DispatchQueue.concurrentPerform(iterations: threads + 1) { t in
            if t == threads {
                for i in 0..<50 {
                    listened.enter()
                    a.listenedBy(owner).withBlock { _ in }
                    _ = i
                    listened.leave()
                }
                return
            }
            for i in 1...perThread { a.value = i }
        }
        sum.listenedBy(owner).withBlock { counter.print("\($0)") }
        XCTAssertEqual(sum.value, threads * (perThread * (perThread + 1) / 2))
        XCTAssertEqual(a.edgeCount, 50 + 1, "50 listeners and the scan")
        XCTAssertEqual(counter.all.count, 1)
    }
}

extension Node {
    /// How many edges (derived nodes and listeners) the node has (for tests).
    var edgeCount: Int { GraphEngine.shared.lock.withLock { edges.count } }
}

final class NodeMainQueueTests: XCTestCase {
    func testMainQueueVariantsDeliverOnTheMainThread() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode<Int>()
        a.deliverOnMainQueue().listenedBy(owner).withBlock { printed.print("deliverOn main \(Thread.isMainThread) \($0)") }
        a.listenedBy(owner).withBlockOnMainQueue { printed.print("withBlock main \(Thread.isMainThread) \($0)") }
        a.delayOnMainQueue(0.01).listenedBy(owner).withBlock { printed.print("delay main \(Thread.isMainThread) \($0)") }
        a.throttleOnMainQueue(0.01).listenedBy(owner).withBlock { printed.print("throttle main \(Thread.isMainThread) \($0)") }
        DispatchQueue.global().async { a.value = 1 }
        let deadline = Date().addingTimeInterval(5)
        while printed.all.count < 4 && Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
        XCTAssertEqual(Set(printed.all), ["deliverOn main true 1", "withBlock main true 1", "delay main true 1",
                                          "throttle main true 1"])
    }
}
