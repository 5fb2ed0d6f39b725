import Dispatch
import Foundation
import XCTest

@testable import RJNodes

/// Every example of the seed (EasyReact's "basic transforms"), with its printed output.
final class NodeTransformTests: XCTestCase {
    let owner = Owner()

    func testMapPassesTheCurrentValueAtOnce() {
        let nodeA = MutableNode(1)
        let nodeB = nodeA.map { "\($0)" }
        XCTAssertEqual(nodeB.value, "1")
        nodeA.value = 2
        XCTAssertEqual(nodeB.value, "2")
    }

    func testMapReplace() {
        let printed = Printed()
        let nodeA = MutableNode(1)
        let nodeB = nodeA.mapReplace("叮铃，有值啦！")
        nodeB.listenedBy(owner).withBlock { printed.print($0) }
        nodeA.value = 2
        nodeA.value = 3
        XCTAssertEqual(printed.all, ["叮铃，有值啦！", "叮铃，有值啦！", "叮铃，有值啦！"])
    }

    func testFilterPassesOnlyMatchingValuesAndKeepsTheLastOne() {
        let nodeA = MutableNode(1)
        let nodeB = nodeA.filter { $0 > 5 }
        XCTAssertTrue(nodeB.isEmpty)
        XCTAssertNil(nodeB.value)
        nodeA.value = 6
        XCTAssertEqual(nodeB.value, 6)
        nodeA.value = 3
        XCTAssertEqual(nodeB.value, 6)
    }

    func testIgnoreAndSelect() {
        let printed = Printed()
        let nodeA = MutableNode(1)
        let nodeB = nodeA.ignore(1)
        let nodeC = nodeA.select(1)
        nodeB.listenedBy(owner).withBlock { printed.print("NodeB 收到 \($0)") }
        nodeC.listenedBy(owner).withBlock { printed.print("NodeC 收到 \($0)") }
        nodeA.value = 12
        nodeA.value = 1
        nodeA.value = 7
        XCTAssertEqual(printed.all, ["NodeC 收到 1", "NodeB 收到 12", "NodeC 收到 1", "NodeB 收到 7"])
    }

    func testDistinctUntilChanged() {
        let printed = Printed()
        let nodeA = MutableNode(1)
        let nodeB = nodeA.distinctUntilChanged()
        nodeB.listenedBy(owner).withBlock { printed.print("收到 \($0)") }
        nodeA.value = 1
        nodeA.value = 2
        nodeA.value = 2
        nodeA.value = 1
        nodeA.value = 2
        XCTAssertEqual(printed.all, ["收到 1", "收到 2", "收到 1", "收到 2"])
    }

    func testThrottleSearchExample() {
        let printed = Printed()
        let queue = DispatchQueue(label: "throttle.test")
        let inputNode = MutableNode<String>()
        let searchNode = inputNode.throttle(on: queue, 0.1)
        searchNode.listenedBy(owner).withBlock { printed.print("想要搜索的是 \($0)") }
        for text in ["h", "he", "hel", "hell", "hello"] { inputNode.value = text }
        let second = expectation(description: "second burst")
        queue.asyncAfter(deadline: .now() + 0.15) {
            for text in ["hello ", "hello w", "hello wo", "hello wor", "hello worl", "hello world"] {
                inputNode.value = text
            }
            queue.asyncAfter(deadline: .now() + 0.25) { second.fulfill() }
        }
        wait(for: [second], timeout: 5)
        XCTAssertEqual(printed.all, ["想要搜索的是 hello", "想要搜索的是 hello world"])
    }

    func testSkipDropsTheFirstNValues() {
        let nodeA = MutableNode<Int>()
        let nodeB = nodeA.skip(2)
        XCTAssertTrue(nodeB.isEmpty)
        nodeA.value = 1
        XCTAssertTrue(nodeB.isEmpty)
        nodeA.value = 2
        XCTAssertTrue(nodeB.isEmpty)
        nodeA.value = 3
        XCTAssertEqual(nodeB.value, 3)
    }

    func testTakePassesTheFirstNValuesThenNothing() {
        let nodeA = MutableNode<Int>()
        let nodeB = nodeA.take(2)
        XCTAssertTrue(nodeB.isEmpty)
        nodeA.value = 1
        XCTAssertEqual(nodeB.value, 1)
        nodeA.value = 2
        XCTAssertEqual(nodeB.value, 2)
        nodeA.value = 3
        XCTAssertEqual(nodeB.value, 2)
    }

    func testTakeZeroPassesNothing() {
        let nodeA = MutableNode(1)
        let nodeB = nodeA.take(0)
        nodeA.value = 2
        XCTAssertTrue(nodeB.isEmpty)
    }

    func testDeliverOnRunsTheRestOfTheChainOnTheQueue() {
        let key = DispatchSpecificKey<String>()
        let work = DispatchQueue(label: "someQueue")
        work.setSpecific(key: key, value: "someQueue")
        let printed = Printed()
        let nodeA = MutableNode<Double>()
        let nodeB = nodeA.deliverOn(work).map { value -> Double in
            printed.print("map on \(DispatchQueue.getSpecific(key: key) ?? "other") \(value)")
            return value
        }
        let done = expectation(description: "delivered")
        nodeB.listenedBy(owner).withBlock { value in
            if value == 3 { done.fulfill() }
        }
        nodeA.value = 0.01
        DispatchQueue.global().async { nodeA.value = 3 }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(printed.all, ["map on someQueue 0.01", "map on someQueue 3.0"])
    }

    func testDelayDeliversAValueAfterItsIntervalNotBefore() {
        let nodeA = MutableNode<Int>()
        let nodeB = nodeA.delay(on: .global(), 0.05)
        let start = Date()
        let done = expectation(description: "delayed")
        let elapsed = Printed()
        nodeB.listenedBy(owner).withBlock { _ in
            elapsed.print("\(Date().timeIntervalSince(start) >= 0.045)")
            done.fulfill()
        }
        nodeA.value = 1
        XCTAssertTrue(nodeB.isEmpty, "not yet")
        wait(for: [done], timeout: 5)
        XCTAssertEqual(elapsed.all, ["true"])
        XCTAssertEqual(nodeB.value, 1)
    }

    func testScanCollectsAsInTheSeed() {
        let printed = Printed()
        let nodeA = MutableNode<Int>()
        let nodeB = nodeA.scan(start: [Int]()) { last, current in last + [current] }
        nodeB.listenedBy(owner).withBlock { printed.print("接收到 \($0)") }
        for i in 1...5 { nodeA.value = i }
        XCTAssertEqual(printed.all, ["接收到 [1]", "接收到 [1, 2]", "接收到 [1, 2, 3]", "接收到 [1, 2, 3, 4]",
                                     "接收到 [1, 2, 3, 4, 5]"])
    }

    func testEmptyIsDistinctFromNil() {
        let node = MutableNode<Int?>(nil)
        XCTAssertFalse(node.isEmpty)
        XCTAssertEqual(node.value, .some(nil))
        let printed = Printed()
        node.listenedBy(owner).withBlock { printed.print("\($0 as Any)") }
        node.set(nil)
        node.set(1)
        node.value = nil  // empties: not delivered
        XCTAssertTrue(node.isEmpty)
        XCTAssertEqual(printed.all, ["nil", "nil", "Optional(1)"])
    }

    func testCleanEmptiesWithoutDeliveringAndDownstreamKeepsItsValue() {
        let printed = Printed()
        let a = MutableNode(1)
        let b = a.map { $0 * 10 }
        b.listenedBy(owner).withBlock { printed.print("\($0)") }
        a.clean()
        XCTAssertTrue(a.isEmpty)
        XCTAssertEqual(b.value, 10)
        XCTAssertEqual(printed.all, ["10"])
    }
}
