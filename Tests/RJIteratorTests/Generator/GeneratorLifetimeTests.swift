import CRJContext
import XCTest

@testable import RJIterator

final class GeneratorLifetimeTests: XCTestCase {
    func testReleasingSuspendedGeneratorRunsDefersAndReleasesStack() throws {
        let liveBefore = liveBodies
        let trackedBefore = Tracked.count
        var log: [String] = []
        do {
            let gen = Generator<Int, Void, Void> { y in
                let held = Tracked()
                defer { log.append("defer"); withExtendedLifetime(held) {} }
                try y.yield(1)
                try y.yield(2)
            }
            XCTAssertEqual(try gen.next().yieldedValue, 1)
            XCTAssertEqual(Tracked.count, trackedBefore + 1)
            XCTAssertEqual(liveBodies, liveBefore + 1)
        }
        XCTAssertEqual(log, ["defer"])
        XCTAssertEqual(Tracked.count, trackedBefore, "objects on the suspended stack are released")
        XCTAssertEqual(liveBodies, liveBefore, "the stack went back")
    }

    func testSuspendedBodyDoesNotKeepGeneratorAlive() throws {
        weak var weakGen: Generator<Int, Void, Void>?
        do {
            let gen = Generator<Int, Void, Void> { y in try y.yield(1); try y.yield(2) }
            weakGen = gen
            _ = try gen.next()
        }
        XCTAssertNil(weakGen)
    }

    func testCompletedGeneratorGivesStackBackAtOnce() throws {
        let liveBefore = liveBodies
        let gen = Generator<Int, Void, Int> { y in try y.yield(1); return 2 }
        _ = try gen.next()
        XCTAssertEqual(liveBodies, liveBefore + 1)
        _ = try gen.next()
        XCTAssertEqual(liveBodies, liveBefore)
        XCTAssertEqual(gen.state, .completed)
    }

    func testUnstartedGeneratorHoldsNoStack() throws {
        let liveBefore = liveBodies
        let gens = (0..<100).map { i in Generator<Int, Void, Void> { y in try y.yield(i) } }
        XCTAssertEqual(liveBodies, liveBefore, "a generator made and never resumed holds a stack")
        // The count sees a started one, so the assertion above is one that can fail.
        XCTAssertEqual(try gens[42].next().yieldedValue, 42)
        XCTAssertEqual(liveBodies, liveBefore + 1)
        withExtendedLifetime(gens) {}   // optimised, the array would be released after its last use
    }

    func testCustomStackSizeIsHonoured() throws {
        var depthReached = 0
        func recurse(_ n: Int) -> Int {
            var pad = (n, n, n, n, n, n, n, n)  // ~64 bytes a frame at least
            withUnsafeMutableBytes(of: &pad) { _ in }
            depthReached = n
            return n == 0 ? 0 : recurse(n - 1) + 1
        }
        let gen = Generator<Int, Void, Int>(stackSize: (4 << 20) * sanitizerStackFactor) { _ in recurse(20_000) }
        XCTAssertEqual(try gen.next(), .returned(20_000))
        XCTAssertEqual(depthReached, 0)
    }

    func testManyLiveGeneratorsAtOnce() throws {
        let liveBefore = liveBodies
        var gens: [Generator<Int, Void, Void>] = []
        let count = aliveAtOnce(5_000)
        for i in 0..<count {
            let g = Generator<Int, Void, Void>(stackSize: 16 * 1024 * sanitizerStackFactor) { y in try y.yield(i); try y.yield(-i) }
            XCTAssertEqual(try g.next().yieldedValue, i)
            gens.append(g)
        }
        XCTAssertEqual(liveBodies, liveBefore + count)
        for (i, g) in gens.enumerated() { XCTAssertEqual(try g.next().yieldedValue, -i) }
        gens.removeAll()
        XCTAssertEqual(liveBodies, liveBefore)
    }
}
