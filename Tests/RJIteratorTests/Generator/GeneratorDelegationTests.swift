import Foundation
import XCTest

@testable import RJIterator

/// A binary tree of `depth` levels whose labels are 0..<2^depth - 1 in order.
private final class Node: Sendable {
    let label: Int
    let left, right: Node?
    init(_ lo: Int, _ hi: Int) {
        let mid = (lo + hi) / 2
        label = mid
        left = lo < mid ? Node(lo, mid) : nil
        right = mid + 1 < hi ? Node(mid + 1, hi) : nil
    }
}

/// A generator per subtree, each delegating to its children's (CPython's inorder).
private func inorder(_ node: Node?, adopted: Bool) -> Generator<Int, Void, Int> {
    Generator { y in
        guard let node else { return 0 }
        let left = try y.yieldAll(inorder(node.left, adopted: adopted), adopted: adopted)
        try y.yield(node.label)
        let right = try y.yieldAll(inorder(node.right, adopted: adopted), adopted: adopted)
        return left + right + 1
    }
}

/// A chain of `depth` generators, each delegating to the next; the innermost yields
/// `count` values, and each level yields a marker before and after its delegation. `adopted`:
/// each delegate runs adopted on the outermost's stack, else on a stack of its own.
private func chain(_ depth: Int, count: Int, log: Log? = nil, adopted: Bool) -> Generator<Int, Int, Int> {
    Generator { y in
        if depth == 0 {
            var sum = 0
            for i in 0..<count { sum += try y.yield(i) }
            return sum
        }
        log?.add("enter \(depth)")
        let sum = try y.yieldAll(chain(depth - 1, count: count, log: log, adopted: adopted), adopted: adopted)
        log?.add("leave \(depth)")
        return sum
    }
}

final class GeneratorDelegationTests: XCTestCase {
    // The values and inputs of a deep chain go straight to and from the innermost generator;
    // each level's body runs again only when its delegate returns, in order, innermost first.
    func testDeepChainPassesValuesAndInputsAndReturnsInOrder() throws {
        try onBothBackendsAndDelegates { adopted in
            let log = Log()
            // Deep enough to matter, shallow enough for every level to be adopted in a debug
            // build, whose frames take ~2.5 KiB a level (a deeper chain goes on in a new stack
            // when the reserve is used up: GeneratorAdoptionTests).
            let depth = 60
            let outer = chain(depth, count: 5, log: log, adopted: adopted)
            XCTAssertEqual(try outer.next(0), .yielded(0))
            XCTAssertEqual(log.all.count, depth, "every level entered once, on the way down")
            for i in 1..<5 { XCTAssertEqual(try outer.next(i * 10), .yielded(i)) }
            XCTAssertEqual(log.all.count, depth, "no level's body ran for the values in between")
            XCTAssertEqual(try outer.next(50), .returned(10 + 20 + 30 + 40 + 50))
            XCTAssertEqual(log.all.suffix(depth), (1...depth).map { "leave \($0)" })
        }
    }

    // A generator per subtree: delegations start and end all the time, at every depth, and
    // a level yields its own value between two delegations.
    func testGeneratorPerSubtreeYieldsInOrder() throws {
        try onBothBackendsAndDelegates { adopted in
            let tree = Node(0, 1023)
            let walk = inorder(tree, adopted: adopted)
            var labels: [Int] = []
            var result: Int?
            while true {
                switch try walk.next() {
                case .yielded(let label): labels.append(label)
                case .returned(let count): result = count
                }
                if result != nil { break }
            }
            XCTAssertEqual(labels, Array(0..<1023))
            XCTAssertEqual(result, 1023, "every subtree's generator returned its count to its parent")
        }
    }

    // While delegated to, an inner generator belongs to the delegating one: it reads
    // `running`, and resuming it directly is refused; once the delegation ends it is free.
    func testADelegateBelongsToItsDelegatorUntilItReturns() throws {
        let inner = Generator<Int, Void, String> { y in try y.yield(1); try y.yield(2); return "done" }
        let outer = Generator<Int, Void, String> { y in
            let r = try y.yieldAll(inner)
            try y.yield(3)
            return r
        }
        XCTAssertEqual(try outer.next(), .yielded(1))
        XCTAssertEqual(inner.state, .running)
        XCTAssertThrowsError(try inner.next()) { XCTAssertEqual($0 as? GeneratorError, .alreadyRunning) }
        XCTAssertEqual(outer.state, .suspended)
        XCTAssertEqual(try outer.next(), .yielded(2))
        XCTAssertEqual(try outer.next(), .yielded(3))
        XCTAssertEqual(inner.state, .completed)
        XCTAssertEqual(try inner.next(), .returned("done"))
        XCTAssertEqual(try outer.next(), .returned("done"))
    }

    // An error thrown deep in a chain comes out level by level, each able to catch it.
    func testErrorOfTheInnermostReachesEachLevelInTurn() throws {
        try onBothBackends {
            let inner = Generator<Int, Void, Int> { y in
                try y.yield(1)
                throw TestError(code: 5)
            }
            let mid = Generator<Int, Void, Int> { y in try y.yieldAll(inner) }
            let outer = Generator<Int, Void, Int> { y in
                do { return try y.yieldAll(mid) } catch let e as TestError { return -e.code }
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.next(), .returned(-5))
            XCTAssertThrowsError(try mid.next()) { XCTAssertEqual($0 as? TestError, TestError(code: 5)) }
        }
    }

    // throw(e) on the outermost goes to the innermost, through every level's body.
    func testThrowReachesTheInnermostThroughEveryLevel() throws {
        try onBothBackendsAndDelegates { adopted in
            let outer = Generator<Int, Void, Int> { y in
                try y.yieldAll(Generator<Int, Void, Int> { y in
                    try y.yieldAll(Generator<Int, Void, Int> { y in
                        do { try y.yield(1) } catch let e as TestError { try y.yield(e.code) }
                        return 7
                    }, adopted: adopted)
                }, adopted: adopted)
            }
            XCTAssertEqual(try outer.next(), .yielded(1))
            XCTAssertEqual(try outer.throw(TestError(code: 42)), .yielded(42))
            XCTAssertEqual(try outer.next(), .returned(7))
        }
    }

    // A chain started on one thread is resumed from others, one call at a time: its
    // delegates follow it (they belong to it, and its state word orders every access).
    func testDelegationChainResumedFromOtherThreads() throws {
      for adopted in [true, false] {
        let outer = UnsafeTransfer(chain(50, count: 400, adopted: adopted))
        XCTAssertEqual(try outer.value.next(0), .yielded(0))
        let results = UnsafeTransfer(Box<[Int]>([]))
        for round in 0..<4 {
            onOtherThread {
                for i in 0..<100 where round * 100 + i + 1 < 400 {
                    if case .yielded(let v) = try! outer.value.next(1) { results.value.value.append(v) }
                }
            }
        }
        XCTAssertEqual(results.value.value, Array(1..<400))
        XCTAssertEqual(try outer.value.next(1), .returned(400), "the 400 inputs after the first")
      }
    }

    // Releasing the outermost while a deep chain is suspended closes every level, innermost
    // first, and gives every stack back. Adopted, the 30 delegates run on the outermost's stack:
    // 31 generators, one stack.
    func testReleasingADeepChainClosesEveryLevelInnermostFirst() throws {
        try onBothBackendsAndDelegates { adopted in
            let liveBefore = liveBodies
            let log = Log()
            func level(_ n: Int) -> Generator<Int, Void, Void> {
                Generator { y in
                    defer { log.add("closed \(n)") }
                    if n == 0 { try y.yield(0); try y.yield(1) } else { try y.yieldAll(level(n - 1), adopted: adopted) }
                }
            }
            do {
                let outer = level(30)
                XCTAssertEqual(try outer.next().yieldedValue, 0)
                withExtendedLifetime(outer) {
                    if !adopted {
                        XCTAssertEqual(liveBodies, liveBefore + 31)
                    } else if RJRuntime.defaultStackMode == .dedicated {
                        XCTAssertEqual(liveBodies, liveBefore + 1)
                    } else {
                        // A shared-stack coroutine adopts within its first 4 KiB only (a
                        // sanitized build's frames fill it at once).
                        XCTAssertLessThanOrEqual(liveBodies, liveBefore + 31)
                    }
                }
            }
            XCTAssertEqual(log.all, (0...30).map { "closed \($0)" })
            XCTAssertEqual(liveBodies, liveBefore)
        }
    }
}

/// A mutable value behind a reference, for a test's threads taking turns.
final class Box<T> {
    var value: T
    init(_ value: T) { self.value = value }
}
