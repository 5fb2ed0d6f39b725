import CRJContext
import XCTest

@testable import RJIterator

/// The pool of dedicated stacks: what it keeps, reuses and gives back.
final class StackPoolTests: DedicatedStackTestCase {
    func testStacksAreReusedFromThePool() throws {
        RJRuntime.drainStackPool()
        let mappedBefore = RJRuntime.mappedStackCount
        for i in 0..<200 {
            let gen = Generator<Int, Void, Void> { y in try y.yield(i) }
            XCTAssertEqual(try gen.next().yieldedValue, i)
        }
        XCTAssertLessThanOrEqual(RJRuntime.mappedStackCount, mappedBefore + 1, "one stack serves them all")
        XCTAssertGreaterThanOrEqual(RJRuntime.pooledStackCount, 1)
    }

    func testPoolIsBoundedAndDrainable() throws {
        RJRuntime.drainStackPool()
        let savedLimit = RJRuntime.stackPoolLimit
        defer { RJRuntime.stackPoolLimit = savedLimit }
        RJRuntime.stackPoolLimit = 4
        var gens: [Generator<Int, Void, Void>] = []
        for i in 0..<10 {
            let gen = Generator<Int, Void, Void> { y in try y.yield(i) }
            _ = try gen.next()
            gens.append(gen)
        }
        gens.removeAll()
        XCTAssertEqual(RJRuntime.pooledStackCount, 4)
        RJRuntime.drainStackPool()
        XCTAssertEqual(RJRuntime.pooledStackCount, 0)
    }

    func testStacksBeyondTheResidentBudgetArePooledAndStillWork() throws {
        RJRuntime.drainStackPool()
        let savedResident = RJRuntime.stackPoolResidentLimit
        defer { RJRuntime.stackPoolResidentLimit = savedResident }
        RJRuntime.stackPoolResidentLimit = 1
        var gens: [Generator<Int, Void, Void>] = []
        for i in 0..<3 {
            let gen = Generator<Int, Void, Void> { y in try y.yield(i) }
            _ = try gen.next()
            gens.append(gen)
        }
        gens.removeAll()  // one keeps its pages, two give them back (MADV_DONTNEED)
        XCTAssertEqual(RJRuntime.pooledStackCount, 3)
        for i in 0..<3 {  // the given-back stacks come back zeroed and run as well as fresh ones
            let gen = Generator<Int, Void, Int> { y in try y.yield(i); return i * 2 }
            XCTAssertEqual(try gen.next().yieldedValue, i)
            XCTAssertEqual(try gen.next().returnedValue, i * 2)
        }
        RJRuntime.drainStackPool()
    }

    /// `count` generators suspended at their first yield, each on a stack of its own.
    private func suspended(_ count: Int) throws -> [Generator<Int, Void, Void>] {
        try (0..<count).map { i in
            let gen = Generator<Int, Void, Void> { y in try y.yield(i) }
            _ = try gen.next()
            return gen
        }
    }

    // The pool's policy under waves of creation and release (knight's tours, a generator per
    // subtree): stacks that keep their pages are handed out first, and a release gives pages
    // back only when more stacks are pooled at once than the resident limit, and then only
    // the excess, once. (It used to hand out the stacks that had given their pages back first,
    // and give pages back on every release once its resident stacks sat unused at the bottom.)
    func testPoolGivesPagesBackOnlyForWhatExceedsTheResidentLimit() throws {
        RJRuntime.drainStackPool()
        let (savedLimit, savedResident) = (RJRuntime.stackPoolLimit, RJRuntime.stackPoolResidentLimit)
        defer {
            RJRuntime.stackPoolLimit = savedLimit
            RJRuntime.stackPoolResidentLimit = savedResident
            RJRuntime.drainStackPool()
        }
        RJRuntime.stackPoolLimit = 32
        RJRuntime.stackPoolResidentLimit = 8
        var trimmed = rj_stats_trimmed_stacks()
        var wave = try suspended(20)
        wave.removeAll()
        XCTAssertEqual(rj_stats_trimmed_stacks() - trimmed, 12, "20 freed at once: the 12 beyond the limit give their pages back")
        XCTAssertEqual(RJRuntime.pooledStackCount, 20)
        XCTAssertEqual(rj_stats_pooled_resident_stacks(), 8)

        trimmed = rj_stats_trimmed_stacks()
        for _ in 0..<50 {
            wave = try suspended(6)
            wave.removeAll()
        }
        XCTAssertEqual(rj_stats_trimmed_stacks(), trimmed, "waves smaller than the limit run on resident stacks only")
        XCTAssertEqual(rj_stats_pooled_resident_stacks(), 8)

        wave = try suspended(12)  // 8 resident stacks, then 4 that gave their pages back
        // Alive until here (an optimised build may otherwise free them at their last use).
        withExtendedLifetime(wave) { XCTAssertEqual(rj_stats_pooled_resident_stacks(), 0) }
        wave.removeAll()
        XCTAssertEqual(rj_stats_trimmed_stacks() - trimmed, 4, "a wave of 12: the 4 beyond the limit, once")
        XCTAssertEqual(rj_stats_pooled_resident_stacks(), 8)
        XCTAssertEqual(RJRuntime.pooledStackCount, 20)
    }
}
