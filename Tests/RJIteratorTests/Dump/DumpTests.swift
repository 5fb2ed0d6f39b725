import Dispatch
import Foundation
import RJPromises
import XCTest

@testable import RJIterator

// The body's functions: never inlined, each different, and each with work after its call (a
// call in tail position leaves no frame in an optimised build), so that each is a frame of its
// own in every build.
@inline(never) func dumpSink(_ n: Int) { if n == Int.min { print(n) } }
@inline(never) func dumpLevelC(_ y: Yielder<Int, Void>, _ n: Int) throws { try y.yield(n &* 3); dumpSink(n &* 5) }
@inline(never) func dumpLevelB(_ y: Yielder<Int, Void>, _ n: Int) throws { try dumpLevelC(y, n &+ 1); dumpSink(n &* 7) }
@inline(never) func dumpLevelA(_ y: Yielder<Int, Void>, _ n: Int) throws { try dumpLevelB(y, n &+ 2); dumpSink(n &* 11) }
@inline(never) func dumpWaitsForCallback(_ kept: CallbackKeeper) -> RJResult {
    let r = rj_await { done in kept.keep(done) }
    dumpSink(r.value == nil ? 1 : 2)
    return r
}
/// Generators of one closure: with an optimised build, a closure made for each constant would
/// be a function of its own, and the stacks would differ. The creation site is the caller's,
/// passed on as a helper of a user's would.
@inline(never) func dumpLevelGenerator(_ i: Int, file: StaticString = #fileID, line: UInt = #line) -> Generator<Int, Void, Void> {
    Generator<Int, Void, Void>(file: file, line: line) { y in try dumpLevelA(y, i) }
}
@inline(never) func dumpCountingBody(_ y: Yielder<Int, Void>) throws {
    var n = 0
    while true {
        try y.yield(n)
        n &+= 1
    }
}

/// Callbacks kept and never called (a stuck await), released at the end of a test.
final class CallbackKeeper: @unchecked Sendable {
    private let lock = NSLock()
    private var callbacks: [RJAsyncCallback] = []
    func keep(_ c: @escaping RJAsyncCallback) { lock.withLock { callbacks.append(c) } }
    var count: Int { lock.withLock { callbacks.count } }
    func callAll() {
        let all = lock.withLock { callbacks }
        lock.withLock { callbacks = [] }
        for c in all { c(nil, nil) }
    }
}

final class DumpTests: XCTestCase {
    private let file = "RJIteratorTests/DumpTests.swift"

    /// The coroutines of this file made at `line`.
    private func made(at line: Int, in dump: CoroutineDump) -> [CoroutineDump.Coroutine] {
        dump.coroutines.filter { $0.file == file && $0.line == line }
    }

    /// The frames' names, innermost first.
    private func names(_ c: CoroutineDump.Coroutine) -> [String] { c.frames.map { $0.symbol ?? "?" } }

    /// Asserts that `c` is suspended in dumpLevelC, called by B, called by A, in that order.
    private func assertSuspendedInLevels(_ c: CoroutineDump.Coroutine, file: StaticString = #filePath, line: UInt = #line) {
        let frames = names(c)
        let c3 = frames.firstIndex { $0.hasPrefix("RJIteratorTests.dumpLevelC(") }
        let b = frames.firstIndex { $0.hasPrefix("RJIteratorTests.dumpLevelB(") }
        let a = frames.firstIndex { $0.hasPrefix("RJIteratorTests.dumpLevelA(") }
        XCTAssertNotNil(c3, "\(frames)", file: file, line: line)
        XCTAssertNotNil(b, "\(frames)", file: file, line: line)
        XCTAssertNotNil(a, "\(frames)", file: file, line: line)
        if let c3, let b, let a { XCTAssertTrue(c3 < b && b < a, "\(frames)", file: file, line: line) }
        // The library's own frames (the yield path, the entry) are left out.
        XCTAssertFalse(frames.contains { $0.hasPrefix("RJIterator.") || $0.hasPrefix("rj_") }, "\(frames)", file: file, line: line)
    }

    func testADumpShowsEachCoroutineWhereItIsSuspended() throws {
        try onBothBackends {
            let gensLine = #line + 1
            let gens = (0..<3).map { dumpLevelGenerator($0) }
            let createdLine = #line + 1
            let created = Generator<Int, Void, Void> { y in try y.yield(0) }
            let completedLine = #line + 1
            let completed = Generator<Int, Void, Void> { _ in }
            for (i, g) in gens.enumerated() { XCTAssertEqual(try g.next().yieldedValue, 3 * (i + 3)) }
            _ = try completed.next()
            let dump = RJRuntime.dump()
            let mine = made(at: gensLine, in: dump)
            XCTAssertEqual(mine.count, 3, "\(dump)")
            for c in mine {
                XCTAssertEqual(c.kind, .generator)
                XCTAssertEqual(c.state, .suspended)
                XCTAssertEqual(c.waiting, .yield)
                XCTAssertNotNil(c.id)
                XCTAssertFalse(c.isStuck)
                assertSuspendedInLevels(c)
            }
            XCTAssertEqual(Set(mine.compactMap(\.id)), Set(gens.map { RJRuntime.inspect($0).id! }))
            let fresh = made(at: createdLine, in: dump)
            XCTAssertEqual(fresh.map(\.state), [.created])
            XCTAssertEqual(fresh.first?.frames.isEmpty, true)
            XCTAssertEqual(made(at: completedLine, in: dump).map(\.state), [.completed])
            // Grouped: the three identical stacks are one block with a count.
            XCTAssertTrue(dump.description.contains("3 x Generator, suspended in yield:"), "\(dump)")
            XCTAssertTrue(dump.groups.contains { group in group.count == 3 && group.allSatisfy { $0.line == gensLine } })
            withExtendedLifetime((created, completed)) {}
        }
    }

    func testAGeneratorGoneIsGoneFromTheDump() throws {
        let line = #line + 1
        var g: Generator<Int, Void, Void>? = Generator { y in try dumpLevelA(y, 1) }
        _ = try g!.next()
        XCTAssertEqual(made(at: line, in: RJRuntime.dump()).count, 1)
        g = nil
        XCTAssertEqual(made(at: line, in: RJRuntime.dump()).count, 0)
    }

    func testEveryKindIsNamedWithWhatItWaitsOn() throws {
        let keeper = CallbackKeeper()
        let queue = DispatchQueue(label: "dump tests")
        let stuckLine = #line + 1
        let stuck = rj_async(on: queue) { _ = dumpWaitsForCallback(keeper) }
        let timedLine = #line + 1
        let timed = rj_async(on: queue) { _ = rj_await({ done in keeper.keep(done) }, timeout: 60) }
        let pending = Promise<Int>.pending()
        let promiseLine = #line + 1
        let onPromise = rj_async(on: queue) { _ = rj_await(pending) }
        let allLine = #line + 1
        let both = rj_async(on: queue) { _ = rj_await(all: [{ done in keeper.keep(done) }, { done in keeper.keep(done) }]) }
        let seedLine = #line + 1
        let seed = RJIterator { rj_yield(1); return nil }
        _ = seed.next()
        let asyncGenLine = #line + 1
        let asyncGen = AsyncGenerator<Int, Void, Void>(on: queue) { y in try y.yield(1) }
        while keeper.count < 4 { usleep(1000) }
        queue.sync {}
        usleep(20_000)
        let dump = RJRuntime.dump(stuckAfter: 0.01)

        let s = try XCTUnwrap(made(at: stuckLine, in: dump).first, "\(dump)")
        XCTAssertEqual(s.kind, .rjAsyncTask)
        XCTAssertEqual(s.waiting, .callback)
        XCTAssertTrue(s.isStuck)
        XCTAssertGreaterThanOrEqual(s.waitingFor ?? 0, 0.01)
        XCTAssertTrue(names(s).contains { $0.hasPrefix("RJIteratorTests.dumpWaitsForCallback(") }, "\(names(s))")

        let t = try XCTUnwrap(made(at: timedLine, in: dump).first, "\(dump)")
        guard case .timeout(let remaining)? = t.waiting else { return XCTFail("\(t)") }
        XCTAssertTrue(remaining > 50 && remaining <= 60, "\(remaining)")
        XCTAssertFalse(t.isStuck, "a timeout still ahead is not stuck")

        XCTAssertEqual(made(at: promiseLine, in: dump).first?.waiting, .promise)
        XCTAssertEqual(made(at: allLine, in: dump).first?.waiting, .all(2))
        XCTAssertEqual(made(at: seedLine, in: dump).first?.kind, .rjIterator)
        XCTAssertEqual(made(at: seedLine, in: dump).first?.waiting, .yield)
        XCTAssertEqual(made(at: asyncGenLine, in: dump).first?.kind, .asyncGenerator)
        XCTAssertEqual(made(at: asyncGenLine, in: dump).first?.state, .created)
        // The text: stuck ones first, marked.
        let text = dump.description
        XCTAssertTrue(text.contains("rj_async task, suspended in rj_await of a callback for"), text)
        XCTAssertTrue(text.contains("made at \(file):\(stuckLine)"), text)
        XCTAssertTrue(text.contains("[STUCK? callback not called after "), text)

        // The same, for one object the caller holds.
        XCTAssertTrue(stuck.debugDescription.contains("rj_async task, suspended in rj_await of a callback"), stuck.debugDescription)
        XCTAssertTrue(seed.debugDescription.contains("RJIterator, suspended in yield, made at \(file):\(seedLine)"),
                      seed.debugDescription)
        XCTAssertTrue(asyncGen.debugDescription.contains("AsyncGenerator, created (not started)"), asyncGen.debugDescription)

        keeper.callAll()
        pending.fulfill(1)
        let deadline = Date().addingTimeInterval(10)
        while ![stuck, timed, onPromise, both].allSatisfy(\.isFinished) && Date() < deadline { usleep(1000) }
        XCTAssertTrue([stuck, timed, onPromise, both].allSatisfy(\.isFinished))
        XCTAssertEqual(stuck.debugDescription, "rj_async task, finished")
        withExtendedLifetime(asyncGen) {}
    }

    // A dump taken inside a body sees that body running on this thread.
    func testADumpFromInsideABodySeesItRunning() throws {
        let g = Generator<CoroutineDump.Coroutine?, Void, Void> { y in
            let dump = RJRuntime.dump()
            try y.yield(dump.coroutines.first { $0.file == "RJIteratorTests/DumpTests.swift" && $0.state == .running })
        }
        let seen = try XCTUnwrap(try g.next().yieldedValue ?? nil)
        XCTAssertEqual(seen.thread, RJRuntime.inspect(g).thread)
        XCTAssertEqual(seen.id, RJRuntime.inspect(g).id)
    }

    func testDebugDescriptionSaysStateAndWhere() throws {
        let line = #line + 1
        let g = Generator<Int, Void, Void> { y in try dumpLevelA(y, 0) }
        XCTAssertTrue(g.debugDescription.contains("Generator, created (not started), made at \(file):\(line)"),
                      g.debugDescription)
        _ = try g.next()
        let text = g.debugDescription
        XCTAssertTrue(text.contains("suspended in yield"), text)
        XCTAssertTrue(text.contains("RJIteratorTests.dumpLevelB("), text)
        XCTAssertEqual(g.state, .suspended)
        _ = try g.next()
        XCTAssertEqual(g.state, .completed)
        XCTAssertTrue(g.debugDescription.contains("completed"), g.debugDescription)
    }

    func testADelegateIsListedWithTheGeneratorThatDelegatesToIt() throws {
        let innerLine = #line + 1
        let inner = Generator<Int, Void, Void> { y in try dumpLevelA(y, 5) }
        let outerLine = #line + 1
        let outer = Generator<Int, Void, Void> { y in try y.yieldAll(inner) }
        _ = try outer.next()
        let dump = RJRuntime.dump()
        let o = try XCTUnwrap(made(at: outerLine, in: dump).first)
        let i = try XCTUnwrap(made(at: innerLine, in: dump).first)
        XCTAssertEqual(o.waiting, .delegation)
        XCTAssertEqual(i.state, .suspended)
        XCTAssertEqual(i.delegatedFrom, o.id)
        assertSuspendedInLevels(i)
        _ = try outer.next()
        XCTAssertEqual(outer.state, .completed)
    }

    // The registry's slots: more than a chunk (4,096) alive, made on threads that end, released
    // on others, made again; every dump counts exactly the ones alive.
    func testTheRegistryCountsExactlyThroughChurnAndThreadsThatEnd() throws {
        let line = #line + 2
        @Sendable func make(_ n: Int) -> [Generator<Int, Void, Void>] {
            (0..<n).map { _ in Generator<Int, Void, Void> { y in try y.yield(1) } }
        }
        func alive() -> Int { made(at: line, in: RJRuntime.dump()).count }
        for round in 0..<2 {
            // Four threads make 1,500 each (more than a chunk of slots in all) and end; this
            // thread and another release them.
            let batches = RJLockedBox<[[Generator<Int, Void, Void>]]>([])
            for _ in 0..<4 {
                onOtherThread {
                    let gens = make(1_500)
                    for g in gens { _ = try? g.next() }
                    batches.mutate { $0.append(gens) }
                }
            }
            XCTAssertEqual(alive(), 6_000, "round \(round)")
            var all: [[Generator<Int, Void, Void>]] = []
            batches.mutate { all = $0; $0 = [] }
            // Half released here, half on another thread.
            let half = RJLockedBox(Array(all.suffix(2)))
            all.removeLast(2)
            onOtherThread { half.mutate { $0 = [] } }
            XCTAssertEqual(alive(), 3_000, "round \(round)")
            all.removeAll()
            XCTAssertEqual(alive(), 0, "round \(round)")
        }
        // This thread's own slots, taken back when its chunk fills.
        var kept: [Generator<Int, Void, Void>] = []
        for i in 0..<10_000 {
            let g = make(1)[0]
            if i % 3 == 0 { kept.append(g) }
        }
        XCTAssertEqual(alive(), kept.count)
        kept.removeAll()
        XCTAssertEqual(alive(), 0)
    }

    // Dumps on two threads while eight threads resume generators: no resume is refused as
    // busy because a dump held its generator, the counts are exact, and every suspended
    // generator of the set is read whole (its body's function in its stack).
    func testConcurrentDumpsWhileEightThreadsResume() throws {
        let count = 32
        let rounds = 3_000
        let line = #line + 1
        let gens = UnsafeTransfer((0..<count).map { _ in Generator<Int, Void, Void> { y in try dumpCountingBody(y) } })
        for g in gens.value { _ = try g.next() }
        let stop = RJLockedFlag()
        let problems = Log()
        let dumps = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: dumps) {
                var taken = 0
                while !stop.isSet || taken < 3 {
                    let dump = RJRuntime.dump()
                    taken += 1
                    for c in dump.coroutines where c.file == "RJIteratorTests/DumpTests.swift" && c.line == line {
                        if c.state == .suspended && c.id == nil { problems.add("suspended without an id") }
                        if c.state == .suspended && !c.frames.contains(where: { ($0.symbol ?? "").hasPrefix("RJIteratorTests.dumpCountingBody(") }) {
                            problems.add("frames: \(c.frames)")
                        }
                    }
                }
            }
        }
        let counts = UnsafeTransfer(UnsafeMutableBufferPointer<Int>.allocate(capacity: count))
        counts.value.initialize(repeating: 0)
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            // Thread t owns the generators i with i % 8 == t: each is resumed by one thread at a
            // time, so any busy error would be the dump's.
            for _ in 0..<rounds {
                for i in stride(from: t, to: count, by: 8) {
                    do {
                        if case .yielded(let n) = try gens.value[i].next() { counts.value[i] = n }
                    } catch {
                        problems.add("\(i): \(error)")
                    }
                }
            }
        }
        stop.set()
        dumps.wait()
        XCTAssertEqual(problems.all, [])
        XCTAssertEqual(Array(counts.value), Array(repeating: rounds, count: count))
        counts.value.deallocate()
    }
}

/// A value several threads change under a lock.
final class RJLockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func mutate(_ body: (inout T) -> Void) { lock.withLock { body(&value) } }
}

/// A flag set once, read from several threads.
final class RJLockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
