import CRJContext
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

@testable import RJIterator

// Shared-stack generators (StackMode.shared) made explicitly, so that these run in both of
// CI's passes; the rest of the suite runs with shared stacks in the pass with
// RJ_STACK_MODE=shared.
final class SharedStackTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(RJRuntime.sharedStacksAvailable, "this build has no fast backend")
    }

    /// A body whose frames hold values at several depths: it recurses `depth` times, each
    /// frame with its own local, yields at the bottom, and sums the locals on the way back.
    private static func deep(_ y: Yielder<Int, Void>, _ seed: Int, _ depth: Int) throws -> Int {
        let mine = seed &* 31 &+ depth
        if depth == 0 {
            try y.yield(seed)
            return mine
        }
        return try deep(y, seed, depth - 1) &+ mine
    }

    private static func expected(_ seed: Int, _ depth: Int) -> Int {
        (0...depth).reduce(0) { $0 &+ (seed &* 31 &+ $1) }
    }

    func testManyInterleavedOnFewRunStacksKeepTheirFrames() throws {
        // More generators than run stacks: several share each one, and every resume below
        // copies another's frames out and these in.
        let count = RJRuntime.sharedRunStackCount * 3
        var gens: [Generator<Int, Void, Int>] = []
        for seed in 0..<count {
            gens.append(Generator(stackMode: .shared) { y in try SharedStackTests.deep(y, seed, 20 + seed % 7) })
        }
        for (seed, g) in gens.enumerated() { XCTAssertEqual(try g.next(), .yielded(seed)) }
        for (seed, g) in gens.enumerated().reversed() {
            XCTAssertEqual(try g.next(), .returned(SharedStackTests.expected(seed, 20 + seed % 7)), "generator \(seed)")
        }
    }

    func testAChainOfFiltersLongerThanTheRunStacksKeepsEveryFrame() throws {
        // A chain of generators, each pulling from the one below: more links than run stacks,
        // so the run stacks hold several links of one chain, whose frames move in and out.
        var source = Generator<Int, Void, Void>(stackMode: .shared) { y in for i in 0..<200 { try y.yield(i) } }
        let levels = RJRuntime.sharedRunStackCount * 2 + 1
        for level in 0..<levels {
            let below = source
            source = Generator(stackMode: .shared) { y in
                while case .yielded(let v) = try below.next() {
                    if v % (level + 2) == 1 && v >= 10 { return }
                    try y.yield(v)
                }
            }
        }
        var expected = Array(0..<200)
        for level in 0..<levels {
            var kept: [Int] = []
            for v in expected {
                if v % (level + 2) == 1 && v >= 10 { break }
                kept.append(v)
            }
            expected = kept
        }
        XCTAssertEqual(try yieldedValues(source), expected)
    }

    func testAChainOfSeedIteratorsLongerThanTheRunStacksKeepsEveryValue() throws {
        // The seed API's iterators on shared stacks (they take the default mode): each level's
        // body pulls from the level below, so run stacks hold several levels of one chain, and
        // a value yielded on one crosses into a resumer whose frames were moved off it.
        let modeBefore = RJRuntime.defaultStackMode
        RJRuntime.defaultStackMode = .shared
        defer { RJRuntime.defaultStackMode = modeBefore }
        var source = RJIterator {
            for i in 0..<50 { rj_yield(i) }
            return "end"
        }
        let levels = RJRuntime.sharedRunStackCount * 2 + 1
        for level in 0..<levels {
            let below = source
            source = RJIterator {
                var result = below.next(level)
                while !result.done {
                    // The input of `next(x)` crosses down as well: every level adds its own.
                    let input = rj_yield((result.value as? Int ?? -1) * 2) as? Int ?? -1
                    result = below.next(input)
                }
                return result.value
            }
        }
        var values: [Int] = []
        var result = source.next()
        while !result.done {
            values.append(result.value as? Int ?? -1)
            result = source.next(0)
        }
        let scale = 1 << levels
        XCTAssertEqual(values, (0..<50).map { $0 * scale })
        XCTAssertEqual(result.value as? String, "end")
    }

    func testAGeneratorResumingOthersOfItsOwnRunStackGoesThroughTheCopier() throws {
        // Bound from here, one after the other, the generators take the run stacks in turn,
        // twice over: whichever run stack `outer` gets holds two of them, whose frames and its
        // own change places from the copier's stack at each switch.
        let n = RJRuntime.sharedRunStackCount * 2
        let gens = (0..<n).map { i in
            Generator<Int, Void, Void>(stackMode: .shared) { y in
                try y.yield(i)
                try y.yield(i * 10)
            }
        }
        for g in gens { _ = try g.next() }
        let trips = rj_stats_shared_copier_trips()
        let outer = Generator<Int, Void, Void>(stackMode: .shared) { y in
            for g in gens { try y.yield(try g.next().yieldedValue!) }
        }
        XCTAssertEqual(try yieldedValues(outer), (0..<n).map { $0 * 10 })
        XCTAssertGreaterThan(rj_stats_shared_copier_trips(), trips, "some resumes went through the copier")
    }

    func testValuesInputsAndErrorsCrossBetweenSharedGenerators() throws {
        // The hand-off slots are in the resumer's frame, which is copied out while a body of
        // its own run stack runs: values, inputs, a thrown error and a return all arrive.
        var gens: [Generator<String, Int, String>] = []
        for i in 0..<(RJRuntime.sharedRunStackCount + 2) {
            gens.append(Generator(stackMode: .shared) { y in
                var total = 0
                do {
                    while true { total += try y.yield("g\(i) total \(total)") }
                } catch let error as TestError {
                    return "g\(i) caught \(error.code) at \(total)"
                }
            })
        }
        let outer = Generator<String, Void, Void>(stackMode: .shared) { y in
            for (i, g) in gens.enumerated() {
                try y.yield(try g.next(0).yieldedValue!)
                try y.yield(try g.next(i).yieldedValue!)
                try y.yield(String(describing: try g.throw(TestError(code: i))))
            }
        }
        let lines = try yieldedValues(outer)
        XCTAssertEqual(lines.count, gens.count * 3)
        for i in 0..<gens.count {
            XCTAssertEqual(Array(lines[(i * 3)..<(i * 3 + 3)]),
                           ["g\(i) total 0", "g\(i) total \(i)", "returned(\"g\(i) caught \(i) at \(i)\")"])
        }
    }

    func testTaskLocalBindingsOfSharedBodiesSurviveTheirFramesMoving() throws {
        try XCTSkipUnless(rj_task_locals_tracked() == 1)
        // Each body binds a value (outside any task: a list through its frames) and suspends;
        // the others' runs move its frames out, and a shared resumer of its own run stack
        // moves them again at each switch.
        let n = RJRuntime.sharedRunStackCount * 3
        let gens = (0..<n).map { i in
            Generator<String, Void, Void>(stackMode: .shared) { y in
                try Locals.$name.withValue("g\(i)") {
                    try y.yield("\(Locals.name)/\(Locals.depth)")
                    try y.yield("\(Locals.name)/\(Locals.depth)")
                }
                try y.yield("\(Locals.name)/\(Locals.depth)")
            }
        }
        for g in gens { _ = try g.next() }
        // The resumer's own binding goes below the body's: the body's bottom binding is
        // relinked to it at each resume, in frames that may be away.
        let outer = Generator<String, Void, Void>(stackMode: .shared) { y in
            for g in gens {
                try y.yield(try Locals.$depth.withValue(7) { try g.next().yieldedValue! })
                try y.yield(try Locals.$depth.withValue(8) { try g.next().yieldedValue! })
            }
        }
        let expected = (0..<n).flatMap { ["g\($0)/7", "default/8"] }
        XCTAssertEqual(try yieldedValues(outer), expected)
        XCTAssertEqual(Locals.name, "default")
    }

    func testSharedAndDedicatedMixInOneNest() throws {
        let inner = Generator<Int, Void, Void>(stackMode: .dedicated) { y in for i in 0..<5 { try y.yield(i) } }
        let middle = Generator<Int, Void, Void>(stackMode: .shared) { y in
            while case .yielded(let v) = try inner.next() { try y.yield(v * 10) }
        }
        let outer = Generator<Int, Void, Void>(stackMode: .dedicated) { y in
            while case .yielded(let v) = try middle.next() { try y.yield(v + 1) }
        }
        XCTAssertEqual(try yieldedValues(outer), [1, 11, 21, 31, 41])
    }

    func testEightThreadsResumeTheSameSharedGenerators() throws {
        let count = 24
        let gens = (0..<count).map { _ in
            UnsafeTransfer(Generator<Int, Void, Void>(stackMode: .shared) { y in
                var n = 0
                while true {
                    n += 1
                    try y.yield(n)
                }
            })
        }
        let locks = (0..<count).map { _ in NSLock() }
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var seed = UInt32(thread + 1)
            for _ in 0..<perThread {
                seed = seed &* 1_103_515_245 &+ 12_345
                let k = Int(seed >> 8) % count
                locks[k].lock()
                _ = try? gens[k].value.next()
                locks[k].unlock()
            }
        }
        var total = 0
        for g in gens { total += try g.value.next().yieldedValue! - 1 }
        XCTAssertEqual(total, 8 * perThread, "each resume counted once, frames intact across threads")
    }

    func testASuspendedShallowGeneratorKeepsLittle() throws {
        let gen = Generator<Int, Void, Void>(stackMode: .shared) { y in for i in 0..<3 { try y.yield(i) } }
        let other = Generator<Int, Void, Void>(stackMode: .shared) { y in for i in 0..<3 { try y.yield(i) } }
        _ = try gen.next()
        // Enough others started that `gen`'s run stack had another occupant: its frames went
        // to their block.
        var others: [Generator<Int, Void, Void>] = [other]
        for _ in 0..<RJRuntime.sharedRunStackCount { others.append(Generator(stackMode: .shared) { y in try y.yield(0) }) }
        for o in others { _ = try o.next() }
        let saved = rj_coro_saved_bytes(gen.coro!)
        XCTAssertGreaterThan(saved, 0)
        // A few hundred bytes in an optimised build, a few KiB unoptimised, more with a sanitizer's
        // redzones and bookkeeping in every frame.
        XCTAssertLessThanOrEqual(saved, RJRuntime.sanitizer == nil ? 4096 : 32 * 1024, "a shallow body's frames")
        withExtendedLifetime(others) {}
    }

    func testReleaseAndCompletionFreeEverything() throws {
        let before = RJRuntime.sharedGeneratorCount
        do {
            let log = Log()
            var gens: [Generator<Int, Void, Void>] = []
            for i in 0..<100 {
                gens.append(Generator(stackMode: .shared) { y in
                    defer { log.add("closed") }
                    try y.yield(i)
                    try y.yield(i)
                })
            }
            for g in gens { _ = try g.next() }
            XCTAssertEqual(RJRuntime.sharedGeneratorCount, before + 100)
            for g in gens.prefix(50) { _ = try yieldedValues(g) }
            XCTAssertEqual(RJRuntime.sharedGeneratorCount, before + 50, "completed bodies let go at once")
            gens.removeAll()
            XCTAssertEqual(log.all.count, 100, "released suspended bodies were closed: their defers ran")
        }
        XCTAssertEqual(RJRuntime.sharedGeneratorCount, before)
    }

    func testManyCreatedAdvancedAndReleasedGiveTheirMemoryBack() throws {
        // A million in an optimised build (CI's release pass); fewer where each costs more:
        // ThreadSanitizer keeps a fiber of a few hundred KiB per coroutine.
        let count = switch RJRuntime.sanitizer {
        case "thread": 2_000
        case "address": 100_000
        default: _isDebugAssertConfiguration() ? 200_000 : 1_000_000
        }
        let before = residentBytes()
        let aliveBefore = RJRuntime.sharedGeneratorCount
        var gens: [Generator<Int, Void, Void>] = []
        gens.reserveCapacity(count)
        for i in 0..<count {
            let g = Generator<Int, Void, Void>(stackMode: .shared) { y in
                try y.yield(i)
                try y.yield(-i)
            }
            _ = try g.next()
            gens.append(g)
        }
        let peak = residentBytes()
        var sum = 0
        for g in gens { sum &+= try g.next().yieldedValue! }
        XCTAssertEqual(sum, -(count * (count - 1) / 2))
        gens = []
        XCTAssertEqual(RJRuntime.sharedGeneratorCount, aliveBefore)
        trimHeap()
        let after = residentBytes()
        // A sanitizer's allocator and shadow memory keep what they saw: the memory is only
        // checked without one.
        if RJRuntime.sanitizer == nil {
            XCTAssertLessThan(Double(after - before), Double(peak - before) * 0.25,
                              "resident memory back near the start: \(before >> 20) MiB, peak \(peak >> 20) MiB, after \(after >> 20) MiB")
        }
    }

    func testStackSizeWithSharedModeIsRefusedInAChildProcess() throws {
        // The message itself is checked by the probe tests (ProbeTests); here: the mode a size
        // implies when no mode is given.
        let sized = Generator<Int, Void, Void>(stackSize: 64 * 1024) { y in try y.yield(1) }
        XCTAssertEqual(sized.stackMode, RJ_STACK_DEDICATED, "a size means a stack of its own")
        let chosen = Generator<Int, Void, Void>(stackMode: .shared) { y in try y.yield(1) }
        XCTAssertEqual(chosen.stackMode, RJ_STACK_SHARED)
        _ = try sized.next()
        _ = try chosen.next()
    }
}

/// This process's resident memory in bytes (Linux: /proc/self/statm).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Gives the allocator's free memory back to the system (glibc's malloc_trim, looked up: Swift's
/// Glibc module does not declare it).
func trimHeap() {
    #if canImport(Glibc)
    typealias MallocTrim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
    #endif
}
