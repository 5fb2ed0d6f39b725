import Foundation
import XCTest
import CRJContext

@testable import RJIterator

// Adoption (Adoption.swift, docs/generators.md "Delegation"): `yieldAll` of a fresh generator
// that only the delegating body holds runs its body on that body's stack, as a nested call.
// Everything observable stays as with a delegate on a stack of its own: the semantics tests of
// delegation run both ways (`Delegate`, GeneratorDelegationCloseTests); these pin what is
// adoption's own: when it happens, the adopted generator's state, threads, stacks, dumps.

// The tests run on dedicated stacks also when the suite runs with shared ones: a shared-stack
// coroutine adopts only within its first 4 KiB (testASharedStackAdoptsWithinItsBound), which a
// debug or sanitized build's frames fill within a level or two.
final class GeneratorAdoptionTests: DedicatedStackTestCase {
    /// A generator per subtree of a tree of `depth` levels, each delegating to its children's.
    private func perSubtree(_ lo: Int, _ hi: Int, stackMode: StackMode? = nil) -> Generator<Int, Void, Void> {
        Generator(stackMode: stackMode) { y in
            guard lo < hi else { return }
            let mid = (lo + hi) / 2
            try y.yieldAll(self.perSubtree(lo, mid, stackMode: stackMode))
            try y.yield(mid)
            try y.yieldAll(self.perSubtree(mid + 1, hi, stackMode: stackMode))
        }
    }

    // A generator per call runs on the outermost's stack: one stack for the whole walk.
    func testAGeneratorPerSubtreeRunsOnOneStack() throws {
        try onBothBackends {
            let before = liveBodies
            let walk = perSubtree(0, 1023, stackMode: .dedicated)
            var seen: [Int] = []
            while let value = try walk.nextValue() {
                seen.append(value)
                XCTAssertEqual(liveBodies, before + 1)
            }
            XCTAssertEqual(seen, Array(0..<1023))
            XCTAssertEqual(liveBodies, before)
        }
    }

    // On shared stacks a coroutine adopts only within the first 4 KiB of its run stack (its
    // frames are copied whenever another coroutine takes the run stack): deeper levels start
    // coroutines of their own, each adopting in turn. The walk is the same.
    func testASharedStackAdoptsWithinItsBound() throws {
        guard RJRuntime.sharedStacksAvailable else { return }
        try XCTSkipIf(RJRuntime.sanitizer != nil, "a sanitized build's frames fill the 4 KiB bound before the first level")
        let before = liveBodies
        var adoptedAtDepth: [Int: Bool] = [:]
        func level(_ depth: Int) -> Generator<Int, Void, Void> {
            Generator(stackMode: .shared) { y in
                adoptedAtDepth[depth] = runningBodyIsAdopted()
                try y.yield(depth)
                if depth < 40 { try y.yieldAll(level(depth + 1)) }
            }
        }
        let walk = level(0)
        var seen: [Int] = []
        var most = 0
        while let depth = try walk.nextValue() {
            seen.append(depth)
            most = max(most, liveBodies - before)
        }
        XCTAssertEqual(seen, Array(0...40))
        XCTAssertEqual(adoptedAtDepth[0], false)
        XCTAssertTrue(adoptedAtDepth.values.contains(true), "some levels adopted")
        XCTAssertTrue(adoptedAtDepth.values.filter { !$0 }.count > 1, "some levels started coroutines of their own")
        XCTAssertTrue(most < 41, "\(most) coroutines for 41 levels")
        XCTAssertEqual(liveBodies, before)
    }

    // The inputs of `next(x)` reach the adopted body's `yield`; its return value comes back
    // from `yieldAll`; the outer's return value after.
    func testInputsReachTheAdoptedBodyAndItsReturnValueComesBack() throws {
        try onBothBackends {
            func summing(_ count: Int) -> Generator<Int, Int, Int> {
                Generator { y in
                    var total = 0
                    for _ in 0..<count { total += try y.yield(total) }
                    return total
                }
            }
            let outer = Generator<Int, Int, String> { y in
                let a = try y.yieldAll(summing(2))
                let b = try y.yieldAll(summing(1))
                return "\(a) \(b)"
            }
            XCTAssertEqual(try outer.next(0), .yielded(0))
            XCTAssertEqual(try outer.next(5), .yielded(5))
            XCTAssertEqual(try outer.next(7), .yielded(0))
            XCTAssertEqual(try outer.next(9), .returned("12 9"))
        }
    }

    // An adopted generator is `running` from its adoption to its end (nobody else may resume it),
    // then `completed` with its kept outcome, as a delegate on a stack of its own.
    func testAnAdoptedGeneratorIsRunningUntilItsEndThenKeepsItsOutcome() throws {
        try onBothBackends {
            var states: [GeneratorState] = []
            let inner = Delegate<Int, Void, String>(adopted: true) { y in
                states.append(runningBodyIsAdopted() ? .running : .created)
                try y.yield(1)
                return "done"
            }
            let outer = Generator<Int, Void, Void> { y in
                XCTAssertEqual(try inner.yieldAll(from: y), "done")
                states.append(inner.generator.state)
            }
            XCTAssertEqual(try outer.nextValue(), 1)
            XCTAssertEqual(inner.generator.state, .running, "while the outer is suspended in it")
            XCTAssertThrowsError(try inner.generator.next()) { XCTAssertEqual($0 as? GeneratorError, .alreadyRunning) }
            XCTAssertNil(try outer.nextValue())
            XCTAssertEqual(states, [.running, .completed])
            XCTAssertEqual(try inner.generator.next(), .returned("done"), "the kept outcome")
            XCTAssertEqual(try inner.generator.return("other"), .returned("other"))
            XCTAssertEqual(try inner.generator.next(), .returned("done"))
        }
    }

    // Another thread that drives an adopted generator, while the outer is suspended and while the
    // adopted body runs, gets alreadyRunning.
    func testADelegateDrivenFromAnotherThreadWhileAdoptedIsAlreadyRunning() throws {
        try onBothBackends {
            let results = UnsafeTransfer(Box<[String]>([]))
            let holder = UnsafeTransfer(Box<Delegate<Int, Void, Void>?>(nil))
            func tryFromOtherThread() {
                onOtherThread {
                    let g = holder.value.value!.generator
                    do { _ = try g.next(); results.value.value.append("ran") } catch GeneratorError.alreadyRunning {
                        results.value.value.append("alreadyRunning \(g.state)")
                    } catch { results.value.value.append("\(error)") }
                }
            }
            holder.value.value = Delegate<Int, Void, Void>(adopted: true) { y in
                XCTAssertTrue(runningBodyIsAdopted())
                tryFromOtherThread()                     // while the adopted body runs
                try y.yield(1)
            }
            let outer = Generator<Int, Void, Void> { y in try holder.value.value!.yieldAll(from: y) }
            XCTAssertEqual(try outer.nextValue(), 1)
            tryFromOtherThread()                         // while the outer is suspended
            XCTAssertNil(try outer.nextValue())
            XCTAssertEqual(results.value.value, ["alreadyRunning running", "alreadyRunning running"])
        }
    }

    // Adopted: fresh and held by the delegating body alone. A generator held elsewhere too, or
    // already started, gets a stack of its own, as before.
    func testOnlyAFreshGeneratorHeldByTheDelegatingBodyAloneIsAdopted() throws {
        try onBothBackends {
            var adopted: [Bool] = []
            let held = Generator<Int, Void, Void> { y in adopted.append(runningBodyIsAdopted()); try y.yield(1) }
            let started = Generator<Int, Void, Void> { y in try y.yield(0); adopted.append(runningBodyIsAdopted()); try y.yield(2) }
            XCTAssertEqual(try started.nextValue(), 0)
            let outer = Generator<Int, Void, Void> { y in
                try y.yieldAll(held)
                try y.yieldAll(started)
                try y.yieldAll(Generator<Int, Void, Void> { y in adopted.append(runningBodyIsAdopted()); try y.yield(3) })
            }
            XCTAssertEqual(try yieldedValues(outer), [1, 2, 3])
            XCTAssertEqual(adopted, [false, false, true])
            XCTAssertFalse(held.machine.ranAdopted)
        }
    }

    // A chain mixing adopted delegates and delegates on stacks of their own passes values,
    // inputs, errors and a spent return through every level, in every combination.
    func testMixedChainsOfAdoptedAndOwnStackDelegates() throws {
        for midAdopted in [true, false] {
            for innerAdopted in [true, false] {
                try onBothBackends {
                    let inner = Delegate<String, Int, String>(adopted: innerAdopted) { y in
                        var got = try y.yield("i1")
                        do { got += try y.yield("i2") } catch let e as TestError {
                            got += e.code
                            do { try y.yield("cleanup") } catch { return "returned in cleanup \(got)" }
                        }
                        return "inner \(got)"
                    }
                    let mid = Delegate<String, Int, String>(adopted: midAdopted) { y in
                        let r = try inner.yieldAll(from: y)
                        try y.yield("mid after \(r)")
                        return "mid end"
                    }
                    let outer = Generator<String, Int, String> { y in
                        let r = try mid.yieldAll(from: y)
                        return "outer after \(r)"
                    }
                    XCTAssertEqual(try outer.next(0), .yielded("i1"))
                    XCTAssertEqual(try outer.next(10), .yielded("i2"))
                    XCTAssertEqual(try outer.throw(TestError(code: 5)), .yielded("cleanup"))
                    // The return goes to the innermost, whose cleanup returns its own value: the
                    // levels above it go on closing with that value (the types agree).
                    XCTAssertEqual(try outer.return("r"), .returned("returned in cleanup 15"))
                    XCTAssertEqual(inner.generator.state, .completed)
                    XCTAssertEqual(mid.generator.state, .completed)
                }
            }
        }
    }

    // A for-in inside an adopted body whose generator throws leaves the error for that body (its
    // next yield throws it), as in a body on a stack of its own.
    func testAForInErrorInsideAnAdoptedBodyIsThatBodys() throws {
        try onBothBackends {
            let failing = Generator<Int, Void, Void> { y in try y.yield(1); throw TestError(code: 3) }
            var caught: [Int] = []
            let outer = Generator<Int, Void, Void> { y in
                try y.yieldAll(Generator<Int, Void, Void> { y in
                    XCTAssertTrue(runningBodyIsAdopted())
                    for x in failing { _ = x }
                    do { try y.yield(10) } catch let e as TestError { caught.append(e.code) }
                    try y.yield(20)
                })
                try y.yield(30)
            }
            XCTAssertEqual(try yieldedValues(outer), [20, 30])
            XCTAssertEqual(caught, [3])
        }
    }

    // Releasing the outer while an adopted body delegates to a generator on a stack of its own
    // closes that one first, then the adopted body, then the outer, as a chain of stacks does.
    func testReleaseClosesAMixedChainInnermostFirst() throws {
        try onBothBackends {
            var log: [String] = []
            do {
                let held = Generator<Int, Void, Void> { y in
                    defer { log.append("own stack") }
                    try y.yield(1)
                    try y.yield(2)
                }
                let outer = Generator<Int, Void, Void> { y in
                    defer { log.append("outer") }
                    try y.yieldAll(Generator<Int, Void, Void> { y in
                        defer { log.append("adopted") }
                        XCTAssertTrue(runningBodyIsAdopted())
                        try y.yieldAll(held)
                    })
                }
                XCTAssertEqual(try outer.nextValue(), 1)
                XCTAssertEqual(held.state, .running)
            }
            XCTAssertEqual(log, ["own stack", "adopted", "outer"])
        }
    }

    // An error a for-in of the delegating body left for its next yield waits for that body: a
    // fresh delegate made meanwhile runs on a stack of its own (the error waits on the coroutine
    // host, where an adopted body's first yield would take it), and its yields do not throw it.
    func testAForInErrorWaitingInTheDelegatorIsNotTakenByItsDelegate() throws {
        try onBothBackends {
            let failing = Generator<Int, Void, Void> { y in try y.yield(1); throw TestError(code: 4) }
            var log: [String] = []
            let outer = Generator<Int, Void, Void> { y in
                for x in failing { _ = x }
                try y.yieldAll(Generator<Int, Void, Void> { y in
                    log.append("adopted: \(runningBodyIsAdopted())")
                    try y.yield(10)
                })
                do { try y.yield(20) } catch let e as TestError { log.append("caught \(e.code)") }
                try y.yield(30)
            }
            XCTAssertEqual(try yieldedValues(outer), [10, 30])
            XCTAssertEqual(log, ["adopted: false", "caught 4"])
        }
    }

    // A body adopted on another's stack never has less stack than it was promised: each level
    // here uses most of the default stack before it delegates, and the program that works with a
    // stack per generator works adopted (a level that would not fit gets a stack of its own).
    func testAdoptedBodiesNeverHaveLessStackThanPromised() throws {
        try onBothBackends {
            let use = (RJRuntime.defaultStackSize * 3 / 4) / 4096
            func level(_ n: Int) -> Generator<Int, Void, Void> {
                Generator { y in
                    let depth = deepFrames(use)          // most of a default stack, 4 KiB a frame
                    try y.yield(n * 1000 + depth)
                    if n > 0 { try y.yieldAll(level(n - 1)) }
                }
            }
            XCTAssertEqual(try yieldedValues(level(4)), (0...4).reversed().map { $0 * 1000 + use })
        }
    }

    // The check that lets a delegate be adopted keeps its promised stack and a margin for the
    // frames between the check and the delegate's body: in this build (debug, release,
    // sanitized), those frames fit the margin. Counted from the delegating body's statement
    // before `yieldAll`, above the check, so this overstates them.
    func testTheFramesBetweenYieldAllAndAnAdoptedBodyFitTheMargin() throws {
        try onBothBackends {
            nonisolated(unsafe) var before = 0, inside = 0
            let outer = Generator<Bool, Void, Void> { y in
                before = rj_coro_stack_used(rj_coro_current()!)
                try y.yieldAll(Generator<Bool, Void, Void> { y in
                    inside = rj_coro_stack_used(rj_coro_current()!)
                    try y.yield(runningBodyIsAdopted())
                })
            }
            XCTAssertEqual(try outer.nextValue(), true)
            XCTAssertLessThan(inside - before, rj_adopt_margin(), "the frames between yieldAll and the adopted body")
        }
    }

    // A list 100,000 deep walked with a generator per level works, in both stack modes: a stack
    // adopts levels while its reserve lasts, then the next level starts a new one.
    func testADeepListWalkedWithAGeneratorPerLevel() throws {
        let depth = 100_000 / sanitizerStackFactor
        for mode in RJRuntime.sharedStacksAvailable ? [StackMode.dedicated, .shared] : [.dedicated] {
            func level(_ n: Int) -> Generator<Int, Void, Int> {
                Generator(stackMode: mode) { y in
                    try y.yield(n)
                    if n == 0 { return 0 }
                    return try y.yieldAll(level(n - 1)) + 1
                }
            }
            let walk = level(depth - 1)
            var count = 0
            var expected = depth - 1
            while case .yielded(let n) = try walk.next() {
                XCTAssertEqual(n, expected)
                expected -= 1
                count += 1
            }
            XCTAssertEqual(count, depth)
            XCTAssertEqual(try walk.next(), .returned(depth - 1))
        }
    }

    // Release while an adopted inner's cleanup yields: its frames sit above the outer's, so it
    // cannot stay suspended while the outer unwinds (as a delegate on a stack of its own does,
    // until its own release). Its yield throws the exit signal at once instead: inner first,
    // then outer (GeneratorDelegationCloseTests pins the other order for a stack of its own).
    func testReleaseWhileAnAdoptedInnerCleanupYieldsUnwindsTheInnerThenTheOuter() throws {
        try onBothBackends {
            var log: [String] = []
            do {
                let outer = Generator<Int, Void, Void> { y in
                    defer { log.append("outer") }
                    try y.yieldAll(Generator<Int, Void, Void> { y in
                        defer { log.append("inner defer") }
                        XCTAssertTrue(runningBodyIsAdopted())
                        do { try y.yield(1) } catch {
                            log.append("inner cleanup")
                            do { try y.yield(2) } catch { log.append("inner yield refused: \(error is GeneratorExit)") }
                            throw error
                        }
                    })
                }
                XCTAssertEqual(try outer.next().yieldedValue, 1)
            }
            XCTAssertEqual(log, ["inner cleanup", "inner yield refused: true", "inner defer", "outer"])
        }
    }

    // Task-local values a delegating body binds around `yieldAll` are seen by an adopted delegate
    // for its whole run: its body is a call inside the binding. (A delegate on a stack of its own
    // sees them at its start only, then its resumer's: docs/generators.md, "Delegation".)
    func testAnAdoptedBodySeesTheTaskLocalsItsDelegatorBound() throws {
        try onBothBackends {
            let outer = Generator<Int, Void, Void> { y in
                try Locals.$depth.withValue(7) {
                    try y.yieldAll(Generator<Int, Void, Void> { y in
                        XCTAssertTrue(runningBodyIsAdopted())
                        try y.yield(Locals.depth)
                        try y.yield(Locals.depth)
                    })
                }
            }
            XCTAssertEqual(try yieldedValues(outer), [7, 7])
        }
    }

    // The dump lists adopted generators, each suspended where it is, with the generator whose
    // stack runs it; the frames are that generator's.
    func testADumpListsAdoptedGeneratorsOnTheirRunnersStack() throws {
        let outer = perSubtree(0, 7, stackMode: .dedicated)
        XCTAssertEqual(try outer.nextValue(), 0)   // the outer, its left subtree's, its left's
        let dump = RJRuntime.dump()
        let adopted = dump.coroutines.filter { $0.runsOnStackOf != nil }
        XCTAssertEqual(adopted.count, 2, "\(dump)")
        let id = try XCTUnwrap(adopted.first?.runsOnStackOf)
        XCTAssertTrue(adopted.allSatisfy { $0.runsOnStackOf == id && $0.frames.isEmpty && $0.state == .suspended })
        let runner = try XCTUnwrap(dump.coroutines.first { $0.id == id })
        XCTAssertEqual(runner.waiting, .delegation)
        XCTAssertNil(runner.runsOnStackOf)
        XCTAssertTrue(runner.frames.contains { $0.symbol?.contains("perSubtree") ?? false }, "\(dump)")
        XCTAssertEqual(Set(adopted.compactMap { $0.waiting.map { "\($0)" } }), ["yield", "yieldAll"])
        // Each is delegated to by the one below it: the runner, then the first adopted.
        let middle = try XCTUnwrap(adopted.first { $0.waiting == .delegation })
        let top = try XCTUnwrap(adopted.first { $0.waiting == .yield })
        XCTAssertEqual(middle.delegatedFrom, id)
        XCTAssertEqual(top.delegatedFrom, middle.id)
        XCTAssertTrue(dump.description.contains("on #\(id)'s stack"), "\(dump)")
        withExtendedLifetime(outer) {}
    }
}

/// A kilobyte of stack.
typealias Words16 = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                     UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
typealias KiB = (Words16, Words16, Words16, Words16, Words16, Words16, Words16, Words16)

@inline(never)
func touchStack(_ buffer: UnsafeMutableRawBufferPointer) { buffer[0] &+= 1 }

/// Uses about `frames` frames of 4 KiB of stack (the recursion cannot become a loop: each frame's
/// buffer is touched after the call below it); returns `frames`.
@inline(never)
func deepFrames(_ frames: Int) -> Int {
    let w = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) as Words16
    var pad = ((w, w, w, w, w, w, w, w), (w, w, w, w, w, w, w, w), (w, w, w, w, w, w, w, w), (w, w, w, w, w, w, w, w)) as (KiB, KiB, KiB, KiB)
    let below = frames == 0 ? 0 : deepFrames(frames - 1) + 1
    withUnsafeMutableBytes(of: &pad) { touchStack($0) }
    return below
}
