import Foundation
import XCTest

@testable import RJIterator

// Randomized scenarios (issue 39, extended to issue 52's reader rule): one async generator,
// several readers (Swift tasks and `rj_async` bodies), a body that awaits at random or not,
// with or without a buffer, random cancellations of readers and a random `return`, in both
// stack modes; or one loop that owns its generator, cancelled at random. Checked against
// invariants any sound design keeps, not against examples:
// - each reader's values come in order; all readers' values together are the body's first
//   values, each once, without a hole;
// - a reader whose own task was not cancelled never gets `CancellationError`, nor an early end:
//   while one such reader is left and nothing returns, every value goes out and it sees the end;
// - a cancelled reader gets `CancellationError` (or its last value, decided before);
// - nothing comes out of a `next` made after the `return`'s answer;
// - a loop that owns its generator and is cancelled throws once the body's cleanup has run;
// - the body's cleanup runs exactly once, at the latest when the last reference goes; the
//   state machine's invariants hold whenever looked at.
// A failure names the seed: `RJ_SCENARIO_SEED=<seed>` replays that round.

/// A small deterministic generator (SplitMix64), so that a seed replays a round.
private struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a round saw, from several threads.
private final class Observations: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [[Int]]
    private(set) var endings: [String?]
    private(set) var violations: [String] = []
    private var returnAnswered = false

    init(readers: Int) {
        values = Array(repeating: [], count: readers)
        endings = Array(repeating: nil, count: readers)
    }

    var returnWasAnswered: Bool { lock.withLock { returnAnswered } }
    func answeredReturn() { lock.withLock { returnAnswered = true } }
    func value(_ v: Int, reader: Int, askedAfterReturn: Bool) {
        lock.withLock {
            values[reader].append(v)
            if askedAfterReturn { violations.append("reader \(reader) got \(v) from a next made after the return's answer") }
        }
    }
    func end(_ how: String, reader: Int) { lock.withLock { endings[reader] = how } }
    func endIfNot(_ how: String, reader: Int) { lock.withLock { if endings[reader] == nil { endings[reader] = how } } }
    func violation(_ what: String) { lock.withLock { violations.append(what) } }
    var snapshot: ([[Int]], [String?], [String]) { lock.withLock { (values, endings, violations) } }
}

private func describe(_ error: any Error) -> String {
    if error is CancellationError { return "CancellationError" }
    if let g = error as? GeneratorError, g == .closed { return "closed" }
    return "\(error)"
}

final class AsyncGeneratorScenarioTests: XCTestCase {
    private var stackModes: [StackMode] {
        RJRuntime.sharedStacksAvailable ? [.dedicated, .shared] : [.dedicated]
    }

    func testRandomScenariosKeepTheInvariants() async throws {
        // `RJ_SCENARIO_ROUNDS=20000` for a longer search.
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["RJ_SCENARIO_ROUNDS"].flatMap { Int($0) } ?? (RJRuntime.sanitizer == nil ? 1000 : 150)
        var seeds: [UInt64] = (0..<UInt64(rounds)).map { 0x5EED_0000 &+ $0 }
        if let replay = environment["RJ_SCENARIO_SEED"], let seed = UInt64(replay) { seeds = [seed] }
        for seed in seeds {
            try await round(seed: seed)
        }
    }

    private func round(seed: UInt64) async throws {
        var random = SeededRandom(state: seed)
        let mode = stackModes[Int.random(in: 0..<stackModes.count, using: &random)]
        let buffer = [0, 0, 1, 3].randomElement(using: &random)!
        let count = Int.random(in: 10...40, using: &random)
        let awaitEvery = Int.random(in: 0...3, using: &random)          // 0: never awaits
        let readers = Int.random(in: 1...4, using: &random)
        let owningLoop = readers == 1 && Bool.random(using: &random)
        let rjAsyncReaders = (0..<readers).map { _ in !owningLoop && Bool.random(using: &random) }
        let cancelled = (0..<readers).map { _ in Int.random(in: 0..<(owningLoop ? 2 : 4), using: &random) == 0 }
        let returns = !owningLoop && Int.random(in: 0..<4, using: &random) == 0
        let shape = "seed \(seed): \(mode), buffer \(buffer), \(count) values, await every \(awaitEvery), \(readers) readers "
            + "(rj_async \(rjAsyncReaders), cancelled \(cancelled), owning loop \(owningLoop)), return \(returns)"

        let cleanups = EventCounter()
        let body: @Sendable (AsyncYielder<Int, Void>) throws -> Int = { y in
            cleanups.add("start")
            defer { cleanups.add("cleanup") }
            for i in 0..<count {
                if awaitEvery > 0, i % awaitEvery == 0 {
                    let r = rj_await(answerLater(i, after: Double(i % 3) * 0.0001))
                    if let error = r.error { throw error }
                }
                try y.yield(i)
            }
            return count
        }
        final class Weak: @unchecked Sendable { weak var gen: AsyncGenerator<Int, Void, Int>? }
        let weak = Weak()
        @Sendable func make() -> AsyncGenerator<Int, Void, Int> {
            let gen = buffer > 0 ? AsyncGenerator(bufferingUpTo: buffer, stackMode: mode, body) : AsyncGenerator(stackMode: mode, body)
            weak.gen = gen
            return gen
        }
        // The shared generator; an owning loop makes its own.
        var shared: AsyncGenerator<Int, Void, Int>? = owningLoop ? nil : make()
        let seen = Observations(readers: readers)
        let cleanupsBeforeThrow = LockedBox<(Int, Int)?>(nil)

        // The readers.
        var tasks: [Task<Void, Never>] = []
        var rjTasks: [Int: RJAsyncTask] = [:]
        let rjDone = DispatchSemaphore(value: 0)
        for reader in 0..<readers {
            if owningLoop {
                tasks.append(Task {
                    do {
                        for try await v in make() { seen.value(v, reader: reader, askedAfterReturn: false) }
                        seen.end("returned \(count)", reader: reader)
                    } catch {
                        cleanupsBeforeThrow.value = (cleanups["start"], cleanups["cleanup"])
                        seen.end(describe(error), reader: reader)
                    }
                })
            } else if rjAsyncReaders[reader] {
                rjTasks[reader] = rj_async(on: DispatchQueue(label: "reader \(reader)")) { [g = shared!] in
                    while true {
                        let afterReturn = seen.returnWasAnswered
                        do {
                            switch try rj_awaitValue(nextOf: g) {
                            case .yielded(let v): seen.value(v, reader: reader, askedAfterReturn: afterReturn)
                            case .returned(let r):
                                seen.end("returned \(r)", reader: reader)
                                return
                            }
                        } catch {
                            seen.end(describe(error), reader: reader)
                            return
                        }
                    }
                }.finally {
                    // A task cancelled before its body started never runs it.
                    seen.endIfNot("never started", reader: reader)
                    rjDone.signal()
                }
            } else {
                tasks.append(Task { [g = shared!] in
                    while true {
                        let afterReturn = seen.returnWasAnswered
                        do {
                            switch try await g.next() {
                            case .yielded(let v): seen.value(v, reader: reader, askedAfterReturn: afterReturn)
                            case .returned(let r):
                                seen.end("returned \(r)", reader: reader)
                                return
                            }
                        } catch {
                            seen.end(describe(error), reader: reader)
                            return
                        }
                        if reader % 2 == 0 { await Task.yield() }
                    }
                })
            }
        }
        var swiftIndex: [Int: Task<Void, Never>] = [:]
        var next = 0
        for reader in 0..<readers where !rjAsyncReaders[reader] {
            swiftIndex[reader] = tasks[next]
            next += 1
        }

        // The events: cancellations and a return, at random moments; the state machine looked
        // at meanwhile.
        var delays = (0..<(readers + 1)).map { _ in UInt64.random(in: 0...2_000_000, using: &random) }
        for reader in 0..<readers where cancelled[reader] {
            try await Task.sleep(nanoseconds: delays.removeLast())
            // (Not with an owning loop: loading the weak reference makes a strong one for a
            // moment, and a loop that asks then is rightly not the last reader.)
            if !owningLoop, let violation = weak.gen?.storage.state.withLock({ $0.invariantViolation }) { seen.violation(violation) }
            if let task = swiftIndex[reader] { task.cancel() } else { rjTasks[reader]!.cancel() }
        }
        if returns, let g = shared {
            try await Task.sleep(nanoseconds: delays.removeLast())
            do {
                let answer = try await g.return(-1)
                if case .yielded = answer { seen.violation("a return answered with a value (no cleanup of this body yields)") }
            } catch {
                // Its own task was not cancelled.
                seen.violation("return threw \(describe(error))")
            }
            seen.answeredReturn()
        }

        // The end of the round: every reader ends (a hang stops the run, naming the round). With
        // every reader cancelled, what is left of the body is for nobody: the release closes it.
        let watchdog = Task.detached {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            fatalError("a scenario hung: \(shape), endings \(seen.snapshot.1)")
        }
        for task in tasks { await task.value }
        let rjCount = rjTasks.count
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for _ in 0..<rjCount { rjDone.wait() }
                done.resume()
            }
        }
        watchdog.cancel()
        let (values, endings, violations) = seen.snapshot
        XCTAssertEqual(violations, [], shape)
        if let violation = weak.gen?.storage.state.withLock({ $0.invariantViolation }) { XCTFail("\(violation): \(shape)") }

        for (reader, v) in values.enumerated() {
            XCTAssertEqual(v, v.sorted(), "reader \(reader)'s values in order: \(shape)")
            XCTAssertNotNil(endings[reader], "reader \(reader) ended: \(shape)")
            if cancelled[reader] {
                // Its last value may have been decided before the cancellation; an rj_async task
                // cancelled before its body started never ran it.
                let allowed = ["CancellationError", "returned \(count)", "returned -1", "never started"]
                XCTAssertTrue(endings[reader].map(allowed.contains) ?? false, "reader \(reader) ended \(endings[reader] ?? "-"): \(shape)")
            } else {
                let allowed = returns ? ["returned \(count)", "returned -1"] : ["returned \(count)"]
                XCTAssertTrue(endings[reader].map(allowed.contains) ?? false, "reader \(reader) ended \(endings[reader] ?? "-"): \(shape)")
            }
        }
        let all = values.flatMap { $0 }.sorted()
        if ProcessInfo.processInfo.environment["RJ_SCENARIO_TRACE"] != nil { print("\(shape) -> \(all.count) values, \(endings)") }
        XCTAssertEqual(all, Array(0..<all.count), "all values, each once, no hole: \(shape)")
        if cancelled.contains(false), !returns {
            XCTAssertEqual(all.count, count, "every value went out: \(shape)")
        }
        if owningLoop, cancelled[0], endings[0] == "CancellationError", let (started, cleaned) = cleanupsBeforeThrow.value {
            XCTAssertEqual(cleaned, started, "the owning loop threw once the cleanup had run: \(shape)")
        }
        // The last references go: the tasks' captures, and the test's own.
        tasks = []
        swiftIndex = [:]
        rjTasks = [:]
        shared = nil
        // A body that started runs its cleanup once; one whose generator ended before it started
        // (released, or its owning loop cancelled before its first read) never runs, as a Generator's.
        try await eventually { cleanups["cleanup"] == cleanups["start"] && weak.gen == nil }
        XCTAssertNil(weak.gen, "released: \(shape)")
        XCTAssertLessThanOrEqual(cleanups["start"], 1, "the body started once at most: \(shape)")
        XCTAssertEqual(cleanups["cleanup"], cleanups["start"], "the cleanup ran once if the body started: \(shape)")
        if cancelled.contains(false), !returns { XCTAssertEqual(cleanups["start"], 1, "the body started: \(shape)") }
    }
}
