import XCTest

@testable import RJNodes

/// EasyReact's guide, "Combination": every example with the values the guide shows.
final class NodeCombinationTests: XCTestCase {
    // Guide: a := b + c with EZRCombine-mapEach: 3, then 6, then 10.
    func testCombineMapEachKeepsTheSum() {
        let nodeA = MutableNode(1)
        let nodeB = MutableNode(2)
        let nodeC = combine(nodeA, nodeB).mapEach { $0 + $1 }
        XCTAssertEqual(nodeC.value, 3)
        nodeA.value = 4
        XCTAssertEqual(nodeC.value, 6)
        nodeB.value = 6
        XCTAssertEqual(nodeC.value, 10)
    }

    func testCombineWaitsForEveryInputAndTakesThreeAndFour() {
        let a = MutableNode<Int>()
        let b = MutableNode("x")
        let c = MutableNode(true)
        let d = MutableNode(0.5)
        let three = combine(a, b, c)
        let four = combine(a, b, c, d).mapEach { "\($0)\($1)\($2)\($3)" }
        XCTAssertTrue(three.isEmpty, "a is empty: no tuple yet")
        a.value = 7
        XCTAssertEqual(three.value.map { "\($0.0)\($0.1)\($0.2)" }, "7xtrue")
        XCTAssertEqual(four.value, "7xtrue0.5")
    }

    // Guide: merge: 2 (the last upstream holding a value), then 3, then 4.
    func testMergeTakesEveryValueAndStartsWithTheLastHeldOne() {
        let nodeA = MutableNode(1)
        let nodeB = MutableNode(2)
        let nodeC = nodeA.merge(nodeB)
        XCTAssertEqual(nodeC.value, 2)
        nodeA.value = 3
        XCTAssertEqual(nodeC.value, 3)
        nodeB.value = 4
        XCTAssertEqual(nodeC.value, 4)
    }

    // Guide: zip prints (1,2) (3,5) (4,7).
    func testZipPairsTheNthValues() {
        let owner = Owner()
        let printed = Printed()
        let nodeA = MutableNode(1)
        let nodeB = MutableNode(2)
        let nodeC = nodeA.zip(nodeB)
        nodeC.listenedBy(owner).withBlock { printed.print("(\($0.0),\($0.1))") }
        nodeA.value = 3
        nodeA.value = 4
        nodeB.value = 5
        nodeA.value = 6
        nodeB.value = 7
        XCTAssertEqual(printed.all, ["(1,2)", "(3,5)", "(4,7)"])
    }

    /// A backlog on one input (past the point where the queue compacts itself) pairs up in
    /// order as the other input catches up, interleaved with new values on the first.
    func testZipPairsALongBacklogInOrder() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode(0)
        let b = MutableNode(0)
        a.zip(b).listenedBy(owner).withBlock { printed.print("\($0.0)-\($0.1)") }
        for i in 1...100 { a.value = i }
        for i in 1...150 {
            b.value = i
            if i % 3 == 0 { a.value = 100 + i / 3 }
        }
        XCTAssertEqual(printed.all, (0...150).map { "\($0)-\($0)" })
    }

    /// A value the zip has delivered is not kept by its queue: once the zipped node's own
    /// value has moved on, nothing holds it (the queue empties a taken slot at once, not when
    /// it next compacts).
    func testZipReleasesADeliveredValue() {
        final class Token: Sendable {}
        let owner = Owner()
        let a = MutableNode(Token())
        let b = MutableNode(0)
        let zipped = a.zip(b)
        let listening = zipped.listenedBy(owner).withBlock { _ in }
        weak var first: Token?
        do {
            let token = Token()
            first = token
            a.value = token
        }
        a.value = Token()
        a.value = Token()   // a backlog of three on `a`
        b.value = 1         // delivers the first token
        XCTAssertNotNil(first, "the zipped node's value holds it")
        b.value = 2         // the zipped node moves on; two of `a`'s three are taken
        XCTAssertNil(first, "a delivered value is released once nothing but the queue could hold it")
        listening.cancel()
    }

    func testZipOfThreeAndFour() {
        let a = MutableNode(1), b = MutableNode("b"), c = MutableNode(true), d = MutableNode(2.5)
        XCTAssertEqual(a.zip(b, c).value.map { "\($0.0)\($0.1)\($0.2)" }, "1btrue")
        XCTAssertEqual(a.zip(b, c, d).value.map { "\($0.0)\($0.1)\($0.2)\($0.3)" }, "1btrue2.5")
    }

    // Beyond EasyReact: in a diamond one set updates the combined node once, after both sides.
    func testDiamondIsGlitchFree() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode(1)
        let b = a.map { $0 * 10 }
        let c = a.map { $0 + 1 }
        let d = combine(b, c)
        d.listenedBy(owner).withBlock { printed.print("\($0.0),\($0.1)") }
        a.value = 2
        a.value = 3
        // EasyReact would print 20,2 (a new b beside an old c) before 20,3.
        XCTAssertEqual(printed.all, ["10,2", "20,3", "30,4"])
    }

    func testDeepDiamondRunsEachNodeOnceInDependencyOrder() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode(0)
        let b = a.map { $0 + 1 }
        let c = b.map { $0 + 1 }            // two levels on one side
        let d = combine(a, c).mapEach { $0 * 100 + $1 }
        let e = combine(d, b).mapEach { "\($0)/\($1)" }
        e.listenedBy(owner).withBlock { printed.print($0) }
        a.value = 5
        XCTAssertEqual(printed.all, ["2/1", "507/6"])
    }

    func testCombinedNodesAreFreedWithTheirListenersAndKeepTheirInputsAlive() {
        weak var weakCombined: Node<(Int, Int)>?
        weak var weakInput: MutableNode<Int>?
        let kept = MutableNode(1)
        do {
            let input = MutableNode(2)
            weakInput = input
            let combined = combine(kept, input)
            weakCombined = combined
            XCTAssertNotNil(weakInput)
        }
        XCTAssertNil(weakCombined, "nothing holds the combined node")
        XCTAssertNil(weakInput, "the combined node was the only holder of its input")
        kept.value = 3  // the edge was removed: nothing to call
    }

    func testMergeAndZipAreFreed() {
        weak var weakMerged: Node<Int>?
        weak var weakZipped: Node<(Int, Int)>?
        let a = MutableNode(1), b = MutableNode(2)
        do {
            let merged = a.merge(b)
            let zipped = a.zip(b)
            weakMerged = merged
            weakZipped = zipped
        }
        XCTAssertNil(weakMerged)
        XCTAssertNil(weakZipped)
        a.value = 3
        XCTAssertEqual(GraphEngine.shared.lock.withLock { a.edges.count }, 0)
    }
}
