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

    // What a generator keeps beside its state (its return value, its error, a pending return, a
    // for-in's deferred error) lives in raw bytes that it destroys by hand (KeptState.swift):
    // each must stay valid while it can be reported and be released with the generator, once.

    /// An error that holds an object, so that its release can be seen.
    struct HoldingError: Error, @unchecked Sendable { let held: Tracked }

    func testKeptReturnValueLivesUntilTheGeneratorIsReleased() throws {
        let before = Tracked.count
        do {
            let gen = Generator<Int, Void, [Tracked]> { y in try y.yield(1); return [Tracked(), Tracked()] }
            _ = try gen.next()
            XCTAssertEqual(try gen.next().returnedValue?.count, 2)
            XCTAssertEqual(Tracked.count, before + 2, "the kept return value is alive")
            XCTAssertEqual(try gen.next().returnedValue?.count, 2, "and reported again")
            XCTAssertEqual(try gen.return([]).returnedValue?.count, 0, "a completed generator answers return(v) with v")
            XCTAssertEqual(try gen.next().returnedValue?.count, 2, "and keeps its own outcome")
        }
        XCTAssertEqual(Tracked.count, before, "the kept return value is released with the generator")
    }

    func testKeptErrorLivesUntilTheGeneratorIsReleased() throws {
        let before = Tracked.count
        do {
            let gen = Generator<Int, Void, Void> { _ in throw HoldingError(held: Tracked()) }
            XCTAssertThrowsError(try gen.next()) { XCTAssertTrue($0 is HoldingError) }
            XCTAssertEqual(Tracked.count, before + 1, "the kept error is alive")
            XCTAssertThrowsError(try gen.next()) { XCTAssertTrue($0 is HoldingError, "thrown again: \($0)") }
        }
        XCTAssertEqual(Tracked.count, before, "the kept error is released with the generator")
    }

    func testErrorOfABodyClosedOnReleaseIsReleased() throws {
        let before = Tracked.count
        var caught = false
        do {
            let gen = Generator<Int, Void, Void> { y in
                do { try y.yield(1) } catch { caught = true; throw HoldingError(held: Tracked()) }
            }
            _ = try gen.next()
        }
        XCTAssertTrue(caught, "release closed the body")
        XCTAssertEqual(Tracked.count, before, "the error the closed body ended with is released with the generator")
    }

    func testReturnValueCarriedThroughAYieldingCleanupIsReleased() throws {
        let before = Tracked.count
        do {
            let gen = Generator<Int, Void, [Tracked]> { y in
                defer { _ = try? y.yield(9) }   // a cleanup that yields: the return waits behind it
                try y.yield(1)
                return []
            }
            _ = try gen.next()
            XCTAssertEqual(try gen.return([Tracked()]).yieldedValue, 9)
            XCTAssertEqual(Tracked.count, before + 1, "the return value is on its way")
            // Released while the cleanup is suspended: the close ends the cleanup, and the return
            // completes with its value, kept and then released with the generator.
        }
        XCTAssertEqual(Tracked.count, before, "the return value is released once")
        do {
            let gen = Generator<Int, Void, [Tracked]> { y in
                defer { _ = try? y.yield(9) }
                try y.yield(1)
                return []
            }
            _ = try gen.next()
            _ = try gen.return([Tracked(), Tracked()])
            XCTAssertEqual(try gen.next().returnedValue?.count, 2, "the return completes with its value")
            XCTAssertEqual(Tracked.count, before + 2)
        }
        XCTAssertEqual(Tracked.count, before)
    }

    func testForInErrorDeferredToTheBodysEndIsReleased() throws {
        let before = Tracked.count
        do {
            let inner = Generator<Int, Void, Void> { y in try y.yield(1); throw HoldingError(held: Tracked()) }
            let outer = Generator<Int, Void, Void> { y in
                for x in inner { try y.yield(x) }   // for-in cannot throw: the error waits for the body's end
            }
            XCTAssertEqual(try outer.next().yieldedValue, 1)
            XCTAssertThrowsError(try outer.next()) { XCTAssertTrue($0 is HoldingError, "\($0)") }
            XCTAssertThrowsError(try outer.next()) { XCTAssertTrue($0 is HoldingError, "kept: \($0)") }
        }
        XCTAssertEqual(Tracked.count, before, "the deferred error is released with the generators")
    }
}
