import Dispatch
import Foundation
import XCTest

@testable import RJNodes

/// EasyReact's guide, from "Values with context" to "Graph Traversal": each example with the
/// values or printed lines the guide shows.
final class NodeBranchTests: XCTestCase {
    static let lines = [
        "In a quiet afternoon",
        "Li Lei: Hello everybody, I'm Li Lei.",
        "Han Meimei: Hello everyone, my name is Han Meimei.",
        "Li Lei: Hello, Han Meimei.",
        "Han Meimei: Hello Li Lei.",
        "So they were happy together...",
    ]

    func testSwitchCaseDefaultSplitsTheDialogue() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode<String>()
        let nodes = node.switch { line -> String? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count > 1 ? String(parts[0]) : nil
        }
        nodes.case("Li Lei").listenedBy(owner).withBlock { printed.print("Li Lei received a speech: \($0)") }
        nodes.case("Han Meimei").listenedBy(owner).withBlock { printed.print("Han Meimei received a speech: \($0)") }
        nodes.default.listenedBy(owner).withBlock { printed.print("The narration received a speech: \($0)") }
        for line in Self.lines { node.value = line }
        XCTAssertEqual(printed.all, [
            "The narration received a speech: In a quiet afternoon",
            "Li Lei received a speech: Li Lei: Hello everybody, I'm Li Lei.",
            "Han Meimei received a speech: Han Meimei: Hello everyone, my name is Han Meimei.",
            "Li Lei received a speech: Li Lei: Hello, Han Meimei.",
            "Han Meimei received a speech: Han Meimei: Hello Li Lei.",
            "The narration received a speech: So they were happy together...",
        ])
    }

    func testSwitchMapSplitsAndStripsTheSpeaker() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode<String>()
        let nodes = node.switchMap { line -> (String?, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count > 1 else { return (nil, line) }
            return (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
        }
        nodes.case("Li Lei").listenedBy(owner).withBlock { printed.print("Li Lei received a speech: \($0)") }
        nodes.case("Han Meimei").listenedBy(owner).withBlock { printed.print("Han Meimei received a speech: \($0)") }
        nodes.default.listenedBy(owner).withBlock { printed.print("The narration received a speech: \($0)") }
        for line in Self.lines { node.value = line }
        XCTAssertEqual(printed.all, [
            "The narration received a speech: In a quiet afternoon",
            "Li Lei received a speech: Hello everybody, I'm Li Lei.",
            "Han Meimei received a speech: Hello everyone, my name is Han Meimei.",
            "Li Lei received a speech: Hello, Han Meimei.",
            "Han Meimei received a speech: Hello Li Lei.",
            "The narration received a speech: So they were happy together...",
        ])
    }

    func testIfThenElse() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode<Int>()
        node.if { $0 > 0 }
            .then { $0.listenedBy(owner).withBlock { printed.print("Eligible: \($0)") } }
            .else { $0.listenedBy(owner).withBlock { printed.print("Not Eligible: \($0)") } }
        for v in [1, -1, 2, 0, -3] { node.value = v }
        XCTAssertEqual(printed.all, ["Eligible: 1", "Not Eligible: -1", "Eligible: 2", "Not Eligible: 0", "Not Eligible: -3"])
    }

    func testIfThenNode() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode<Int>()
        let positiveNode = node.if { $0 > 0 }.thenNode
        positiveNode.listenedBy(owner).withBlock { printed.print("The positive number is \($0)") }
        for v in [1, -1, 2, 0, -3] { node.value = v }
        XCTAssertEqual(printed.all, ["The positive number is 1", "The positive number is 2"])
    }
}

final class NodeSyncTests: XCTestCase {
    func testSyncWith() {
        let nodeA = MutableNode<Int>()
        let nodeB = MutableNode<Int>()
        let cancelable = nodeA.syncWith(nodeB)
        nodeA.value = 1
        XCTAssertEqual(nodeB.value, 1)
        nodeB.value = 2
        XCTAssertEqual(nodeA.value, 2)
        cancelable.cancel()
        nodeA.value = 3
        XCTAssertEqual(nodeB.value, 2)
    }

    func testSyncWithTransformAndRevert() {
        let nodeA = MutableNode<Int>()
        let nodeB = MutableNode<Int>()
        _ = nodeA.syncWith(nodeB, transform: { $0 / 2 }, revert: { $0 * 2 })
        nodeA.value = 1
        XCTAssertEqual(nodeB.value, 2)
        nodeB.value = 4
        XCTAssertEqual(nodeA.value, 2)
    }

    func testManualSyncOfThreeNodesGoesOnceAroundTheCycle() {
        let owner = Owner()
        let printed = Printed()
        let nodeA = MutableNode<Int>()
        let nodeB = MutableNode<Int>()
        let nodeC = MutableNode<Int>()
        let links = [nodeB.link(to: nodeA), nodeC.link(to: nodeB), nodeA.link(to: nodeC)]
        nodeA.listenedBy(owner).withBlock { printed.print("a \($0)") }
        nodeA.value = 1
        XCTAssertEqual(nodeB.value, 1)
        XCTAssertEqual(nodeC.value, 1)
        nodeB.value = 2
        XCTAssertEqual(nodeC.value, 2)
        XCTAssertEqual(nodeA.value, 2)
        nodeC.value = 3
        XCTAssertEqual(nodeA.value, 3)
        XCTAssertEqual(nodeB.value, 3)
        XCTAssertEqual(printed.all, ["a 1", "a 2", "a 3"], "once around, never again")
        for link in links { link.cancel() }
    }

    func testCancellingASyncFreesTheNodesOnlyItHeld() {
        weak var weakA: MutableNode<Int>?
        weak var weakB: MutableNode<Int>?
        var sync: (any Cancelable)?
        do {
            let a = MutableNode(1)
            let b = MutableNode<Int>()
            weakA = a
            weakB = b
            sync = a.syncWith(b)
            XCTAssertEqual(b.value, 1)
        }
        XCTAssertNotNil(weakA, "a cycle of links keeps its nodes, as in EasyReact")
        sync?.cancel()
        sync = nil
        XCTAssertNil(weakA)
        XCTAssertNil(weakB)
    }

    // A cancelled token lets go of what it linked, even while its user still holds it: the
    // nodes of a cancelled sync (or link) are freed as soon as nothing else holds them.
    func testACancelledTokenHeldByItsUserHoldsNeitherNode() {
        weak var weakA: MutableNode<Int>?
        weak var weakB: MutableNode<Int>?
        weak var weakC: MutableNode<Int>?
        var tokens: [any Cancelable] = []
        do {
            let a = MutableNode(1)
            let b = MutableNode<Int>()
            let c = MutableNode<Int>()
            (weakA, weakB, weakC) = (a, b, c)
            tokens.append(a.syncWith(b))
            tokens.append(c.link(to: a))
        }
        XCTAssertNotNil(weakA, "a cycle of links keeps its nodes, as in EasyReact")
        for token in tokens { token.cancel() }
        XCTAssertNil(weakA, "the tokens are still held; the nodes are not")
        XCTAssertNil(weakB)
        XCTAssertNil(weakC)
        for token in tokens { token.cancel() }  // a second cancel does nothing
        XCTAssertEqual(tokens.count, 2)
    }

    func testLinkAndRemoval() {
        let a = MutableNode(1)
        let b = MutableNode<Int>()
        let c = MutableNode<Int>()
        b.link(to: a)
        c.link(to: a)
        XCTAssertEqual(b.value, 1)
        XCTAssertEqual(a.downstreamNodes.count, 2)
        XCTAssertTrue(b.upstreamNodes.first === a)
        b.removeUpstreamNode(a)
        a.value = 2
        XCTAssertEqual(b.value, 1)
        XCTAssertEqual(c.value, 2)
        a.removeDownstreamNodes()
        a.value = 3
        XCTAssertEqual(c.value, 2)
        XCTAssertTrue(a.downstreamNodes.isEmpty)
        XCTAssertTrue(c.upstreamNodes.isEmpty)
    }

    func testANodeLinkedToTwoUpstreamsInOneSetUpdatesOnce() {
        let owner = Owner()
        let printed = Printed()
        let a = MutableNode(0)
        let b = a.map { $0 * 2 }
        let c = a.map { $0 * 3 }
        let d = MutableNode<Int>()
        d.link(to: b)
        d.link(to: c)
        d.listenedBy(owner).withBlock { printed.print("\($0)") }
        a.value = 1
        XCTAssertEqual(printed.all, ["0", "3"], "one value per set: the last upstream to change")
    }
}

final class NodeHighOrderTests: XCTestCase {
    func testFlattenFollowsTheLatestInnerNode() {
        let nodeA = MutableNode<Int>()
        let nodeB = MutableNode<Int>()
        let nodeC = MutableNode<Int>()
        let highOrderNode = MutableNode<Node<Int>>()
        let flattenedNode: Node<Int> = highOrderNode.flatten()
        highOrderNode.value = nodeA
        nodeA.value = 1
        XCTAssertEqual(flattenedNode.value, 1)
        highOrderNode.value = nodeB
        nodeB.value = 2
        XCTAssertEqual(flattenedNode.value, 2)
        nodeA.value = 3
        XCTAssertEqual(flattenedNode.value, 2, "no longer affected by node A")
        highOrderNode.value = nodeC
        nodeC.value = 4
        XCTAssertEqual(flattenedNode.value, 4)
    }

    func testFlattenMapGivesTheDigitsLater() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode<Int>()
        let flattenMappedNode = node.flattenMap { next -> Node<Int>? in
            var value = next
            let insideNode = MutableNode<Int>()
            let returnNode = insideNode.deliverOnMainQueue()
            while value != 0 {
                insideNode.value = value % 10
                value /= 10
            }
            return returnNode
        }
        flattenMappedNode.listenedBy(owner).withBlock { printed.print("FlattenMappedNode received \($0)") }
        for value in [12, 0, 27, 9527] {
            node.value = value
            // Let the main queue deliver this value's digits before the next value.
            let until = Date().addingTimeInterval(0.05)
            while Date() < until { _ = RunLoop.main.run(mode: .default, before: until) }
        }
        XCTAssertEqual(printed.all.map { String($0.last!) }, ["2", "1", "7", "2", "7", "2", "5", "9"])
    }
}

final class NodeContextAndAccessTests: XCTestCase {
    func testContextTravelsWithTheValue() {
        let owner = Owner()
        let printed = Printed()
        let node = MutableNode(0)
        let doubled = node.map { $0 * 2 }
        doubled.listenedBy(owner).withContextBlock { value, context in
            printed.print("\(value) \(context.map { "\($0)" } ?? "nil")")
        }
        node.set(1, context: "from settings")
        node.value = 2
        XCTAssertEqual(printed.all, ["0 nil", "2 from settings", "4 nil"])
    }

    func testValueWithDefaultAndGetValue() {
        let empty = MutableNode<Int>()
        XCTAssertEqual(empty.value(default: 7), 7)
        var seen: [Int] = []
        empty.getValue { seen.append($0) }
        MutableNode(3).getValue { seen.append($0) }
        XCTAssertEqual(seen, [3])
    }

    func testForkFollowsItsSource() {
        let a = MutableNode(1)
        let b = a.fork()
        XCTAssertEqual(b.value, 1)
        a.value = 2
        XCTAssertEqual(b.value, 2)
    }

    func testGraphDescribesEveryReachableNodeAndEdge() throws {
        let a = MutableNode(1)
        a.name = "a"
        let b = a.map { $0 + 1 }
        b.name = "b"
        let c = MutableNode(0)
        c.name = "c \"quoted\""
        let d = combine(b, c)
        d.name = "d"
        let dot = d.graph()
        XCTAssertTrue(dot.hasPrefix("digraph G {"), dot)
        for label in ["\"a\"", "\"b\"", "\"c \\\"quoted\\\"\"", "\"d\""] { XCTAssertTrue(dot.contains(label), dot) }
        XCTAssertEqual(dot.components(separatedBy: " -> ").count - 1, 3, "a->b, b->d, c->d: \(dot)")
        // With graphviz installed (.ci/run installs it), the text renders.
        let dotTool = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if let dotTool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: dotTool)
            process.arguments = ["-Tsvg"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(dot.data(using: .utf8)!)
            try input.fileHandleForWriting.close()
            let svg = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            XCTAssertTrue(svg.contains("<svg"), svg)
        }
        withExtendedLifetime((a, b, c, d)) {}
    }
}

/// The guide's first sections: values with context, getting values, listening, connecting.
final class NodeGuideBasicsTests: XCTestCase {
    func testListeningSkipsEmptyAndStopsWithTheListener() {
        let printed = Printed()
        let node = MutableNode(1)
        var listener: Owner? = Owner()
        node.listenedBy(listener!).withBlock { printed.print("The next value is \($0)") }
        node.value = 2
        node.clean()
        node.value = 3
        listener = nil
        node.value = 4
        XCTAssertEqual(printed.all, ["The next value is 1", "The next value is 2", "The next value is 3"])
    }

    func testContextExample() {
        let printed = Printed()
        let node = MutableNode(1)
        let listener = Owner()
        node.listenedBy(listener).withContextBlock { next, context in
            printed.print("The next value is \(next), the context is \(context.map { "\($0)" } ?? "(null)")")
        }
        node.set(2, context: "Hey, it's me")
        XCTAssertEqual(printed.all, ["The next value is 1, the context is (null)",
                                     "The next value is 2, the context is Hey, it's me"])
    }

    func testValueWithDefaultExample() {
        let node = MutableNode<Int>()
        XCTAssertEqual(node.value(default: 0), 0)
        node.value = 33
        XCTAssertEqual(node.value(default: 0), 33)
    }

    func testGetValueExample() {
        let node = MutableNode<Int>()
        var calls: [Int] = []
        node.getValue { calls.append($0) }   // not called
        node.value = 33
        node.getValue { calls.append($0) }
        XCTAssertEqual(calls, [33])
    }

    func testLinkAndDisconnectExample() {
        let nodeA = MutableNode(1)
        let nodeB = Node<Int>(slot: .empty)   // an immutable node can be linked too
        let link = nodeB.link(to: nodeA)
        XCTAssertEqual(nodeB.value, 1)
        nodeA.value = 2
        XCTAssertEqual(nodeB.value, 2)
        link.cancel()
        nodeA.value = 3
        XCTAssertEqual(nodeB.value, 2, "no longer changes following nodeA")
    }

    func testForkIsALinkToANewNode() {
        let nodeA = MutableNode(1)
        let nodeB = nodeA.fork()
        XCTAssertEqual(nodeB.value, 1)
        XCTAssertTrue(nodeB.upstreamNodes.first === nodeA)
    }
}
