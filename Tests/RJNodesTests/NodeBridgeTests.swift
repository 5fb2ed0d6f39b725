import Dispatch
import Foundation
import XCTest

import RJBridges
import RJIterator
import RJPromises
@testable import RJNodes

final class NodeBridgeTests: XCTestCase {
    func testValuesGivesTheCurrentValueThenEveryLaterOne() async {
        let node = MutableNode(1)
        let collector = Task { () -> [Int] in
            var seen: [Int] = []
            for await value in node.values {
                seen.append(value)
                if seen.count == 3 { break }
            }
            return seen
        }
        // Wait until the iteration listens (the current value is delivered first).
        while GraphEngine.shared.lock.withLock({ node.edges.count }) == 0 { await Task.yield() }
        node.value = 2
        node.value = 3
        let seen = await collector.value
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(GraphEngine.shared.lock.withLock { node.edges.count }, 0, "leaving the loop stops listening")
    }

    func testCancellingTheIteratingTaskEndsTheSequence() async {
        let node = MutableNode<Int>()
        let iterating = Task { () -> Int in
            var count = 0
            for await _ in node.values { count += 1 }
            return count
        }
        while GraphEngine.shared.lock.withLock({ node.edges.count }) == 0 { await Task.yield() }
        node.value = 5
        iterating.cancel()
        let count = await iterating.value
        XCTAssertLessThanOrEqual(count, 1)
    }

    func testFirstValueIsTheCurrentOrTheNextValue() {
        let full = MutableNode(4)
        XCTAssertEqual(full.firstValue().fulfilledValue, 4)
        let empty = MutableNode<Int>()
        let first = empty.firstValue()
        XCTAssertTrue(first.isPending)
        empty.value = 9
        empty.value = 10
        XCTAssertEqual(first.fulfilledValue, 9)
        XCTAssertEqual(GraphEngine.shared.lock.withLock { empty.edges.count }, 0, "waits once")
    }

    func testNextChangeSkipsTheCurrentOne() {
        let node = MutableNode(1)
        let next = node.nextChange()
        XCTAssertTrue(next.isPending)
        node.value = 2
        XCTAssertEqual(next.fulfilledValue, 2)
    }

    // The old names (issue 30: `nextValue` is a generator's pull; the node's have their own),
    // deprecated, still work; read through a protocol they satisfy (no deprecation warning).
    func testTheOldNextValueNamesStillWork() {
        let node = MutableNode(1)
        let next = oldNextValue(node)
        let seen = Printed()
        _ = oldNextValue(node, includingCurrent: true) { seen.print("now \($0)") }
        _ = oldNextValue(node, includingCurrent: false) { seen.print("next \($0)") }
        XCTAssertTrue(next.isPending)
        node.value = 2
        XCTAssertEqual(next.fulfilledValue, 2)
        XCTAssertEqual(seen.all, ["now 1", "next 2"])
    }

    func testRjAwaitOfANodesNextValueInsideRjAsync() {
        let node = MutableNode("old")
        let queue = DispatchQueue(label: "bridge.body")
        let done = DispatchSemaphore(value: 0)
        let seen = Printed()
        rj_async(on: queue) {
            let result = rj_await(nextOf: node)
            seen.print("\(result.value as? String ?? "nil") \(result.error == nil)")
        }.finally { done.signal() }
        // Set once the body listens (a value set before it does is not its next value).
        for _ in 0..<5_000 where GraphEngine.shared.lock.withLock({ node.edges.count }) == 0 { usleep(1000) }
        node.value = "new"
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(seen.all, ["new true"])
    }
}

final class NodeLifetimeTests: XCTestCase {
    func testSwitchAndIfNodesAreFreed() {
        let source = MutableNode("x")
        weak var weakCase: Node<String>?
        weak var weakDefault: Node<String>?
        weak var weakThen: Node<String>?
        do {
            let nodes = source.switch { $0.first.map(String.init) }
            let caseNode = nodes.case("x")
            let defaultNode = nodes.default
            let thenNode = source.if { !$0.isEmpty }.thenNode
            weakCase = caseNode
            weakDefault = defaultNode
            weakThen = thenNode
            XCTAssertEqual(caseNode.value, "x")
        }
        XCTAssertNil(weakCase)
        XCTAssertNil(weakDefault)
        XCTAssertNil(weakThen)
        source.value = "y"
        XCTAssertEqual(GraphEngine.shared.lock.withLock { source.edges.count }, 0)
    }

    func testFlattenLetsThePreviousInnerNodeGo() {
        let outer = MutableNode<Node<Int>>()
        let flat: Node<Int> = outer.flatten()
        weak var weakFirst: MutableNode<Int>?
        do {
            let first = MutableNode(1)
            weakFirst = first
            outer.value = first
            XCTAssertEqual(flat.value, 1)
        }
        outer.value = MutableNode(2)
        XCTAssertNil(weakFirst, "only the link held the first inner node")
        XCTAssertEqual(flat.value, 2)
    }

    func testForkAndLinkCancelFreeWhatOnlyTheyHeld() {
        weak var weakFork: Node<Int>?
        weak var weakUpstream: MutableNode<Int>?
        let downstream = MutableNode<Int>()
        var link: (any Cancelable)?
        do {
            let upstream = MutableNode(3)
            weakUpstream = upstream
            weakFork = upstream.fork()
            link = downstream.link(to: upstream)
        }
        XCTAssertNil(weakFork)
        XCTAssertNotNil(weakUpstream, "the link holds its upstream")
        link?.cancel()
        link = nil
        XCTAssertNil(weakUpstream)
        XCTAssertEqual(downstream.value, 3)
    }
}

final class NodeGraphThreadTests: XCTestCase {
    func testSetsFromManyThreadsWhileLinksAreAddedAndRemoved() {
        let owner = Owner()
        let a = MutableNode(0)
        let b = a.map { $0 + 1 }
        let c = a.map { $0 * 2 }
        let sum = combine(b, c).mapEach { $0 + $1 }
        let glitches = Printed()
        // In every delivered pair the two sides come from the same value of a.
        combine(b, c).listenedBy(owner).withBlock { pair in
            if pair.1 != (pair.0 - 1) * 2 { glitches.print("\(pair)") }
        }
        DispatchQueue.concurrentPerform(iterations: 5) { t in
            if t == 4 {
                for _ in 0..<200 {
                    let extra = MutableNode<Int>()
                    let link = extra.link(to: sum)
                    _ = extra.syncWith(MutableNode<Int>())
                    link.cancel()
                }
                return
            }
            for i in 1...1_000 { a.value = i + t * 1_000 }
        }
        XCTAssertEqual(glitches.all, [])
        let last = a.value!
        XCTAssertEqual(sum.value, last + 1 + last * 2)
    }
}

private protocol HasOldNextValue {
    associatedtype Value: Sendable
    func nextValue() -> Promise<Value>
    func nextValue(includingCurrent: Bool, _ body: @escaping @Sendable (Value) -> Void) -> any Cancelable
}
extension Node: HasOldNextValue {}
private func oldNextValue<N: HasOldNextValue>(_ node: N) -> Promise<N.Value> { node.nextValue() }
private func oldNextValue<N: HasOldNextValue>(_ node: N, includingCurrent: Bool,
                                              _ body: @escaping @Sendable (N.Value) -> Void) -> any Cancelable {
    node.nextValue(includingCurrent: includingCurrent, body)
}
