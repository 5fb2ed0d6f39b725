import Dispatch
import RJIterator

/// Async generators beside what a Swift user would pick instead: `AsyncStream` and
/// `AsyncThrowingStream` (a producer task feeding a consumer), and a checked continuation.
@MainActor
struct AsyncGeneratorRows {
    static let group = "async generators (per element) and Swift concurrency's equivalents"

    nonisolated private static let otherQueue = DispatchQueue(label: "bench.asyncgen.other")

    /// Runs `body` in a detached task and waits for it.
    nonisolated private static func inTask(_ body: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            try! await body()
            done.signal()
        }
        done.wait()
    }

    /// The generator both element rows iterate: 0..<n, no await.
    nonisolated static func counting(_ n: Int) -> AsyncGenerator<Int, Void, Void> {
        AsyncGenerator<Int, Void, Void> { y in for i in 0..<n { try y.yield(i) } }
    }

    let noAwait = Row(AsyncGeneratorRows.group, "AsyncGenerator: for try await, body without awaits",
                      note: "the body runs on the consumer's thread") { n in
        inTask {
            let gen = counting(n)
            var sum = 0
            for try await x in gen { sum &+= x }
            blackHole(sum)
        }
    }
    /// The loop in an actor's method: the isolated caller the main-actor target is
    /// about (the main actor itself cannot run here: the benchmark's main thread waits). Each
    /// element pays the loop's own executor check after its `await` (the compiler's).
    let inActor = Row(AsyncGeneratorRows.group, "the same, the loop in an actor's method",
                      note: "an isolated caller: the main actor's case") { n in
        loopInActor(n)
    }
    nonisolated private static func loopInActor(_ n: Int) {
        inTask { try await ElementLoop().sum(counting(n)) }
    }
    /// An async generator relaying every value of `source`: pulling (`rj_awaitValue(nextOf:)`,
    /// then `yield`) or delegating (`yieldAll`).
    nonisolated static func relaying(_ source: AsyncGenerator<Int, Void, Void>, delegating: Bool) -> AsyncGenerator<Int, Void, Void> {
        if delegating { return AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(source) } }
        return AsyncGenerator<Int, Void, Void> { y in
            while case .yielded(let v) = try rj_awaitValue(nextOf: source) { try y.yield(v) }
        }
    }
    /// `n` elements of `for try await` over `gen`, in a detached task.
    nonisolated static func read(_ gen: AsyncGenerator<Int, Void, Void>, _ n: Int) {
        inTask {
            var sum = 0
            for try await x in gen { sum &+= x }
            blackHole(sum)
        }
    }
    let relayOne = Row(AsyncGeneratorRows.group, "the same through one relaying async generator (its body pulls and yields)",
                       note: "rj_awaitValue(nextOf:) then yield, per element") { n in
        read(relaying(counting(n), delegating: false), n)
    }
    let relayOneDelegating = Row(AsyncGeneratorRows.group, "the same through one delegating async generator (yieldAll)",
                                 note: "ES2018's yield*") { n in
        read(relaying(counting(n), delegating: true), n)
    }
    let relayTwo = Row(AsyncGeneratorRows.group, "the same through two relaying async generators", note: "two levels, pulling") { n in
        read(relaying(relaying(counting(n), delegating: false), delegating: false), n)
    }
    let streamInBody = Row(AsyncGeneratorRows.group, "an AsyncStream read inside a body (yieldAll), per element",
                           note: "each element an rj_await of the iterator's next() in an immediate task") { n in
        inTask {
            let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
            for i in 0..<n { continuation.yield(i) }
            continuation.finish()
            let gen = AsyncGenerator<Int, Void, Void> { y in try y.yieldAll(stream) }
            var sum = 0
            for try await x in gen { sum &+= x }
            blackHole(sum)
        }
    }
    let streamDirect = Row(AsyncGeneratorRows.group, "the same AsyncStream read directly with for await", note: "elements already buffered") { n in
        inTask {
            let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
            for i in 0..<n { continuation.yield(i) }
            continuation.finish()
            var sum = 0
            for await x in stream { sum &+= x }
            blackHole(sum)
        }
    }
    let throwingStream = Row(AsyncGeneratorRows.group, "AsyncThrowingStream: per element", note: "unbounded buffer, producer and consumer tasks") { n in
        inTask {
            let (stream, continuation) = AsyncThrowingStream<Int, any Error>.makeStream(bufferingPolicy: .unbounded)
            let producer = Task {
                for i in 0..<n { continuation.yield(i) }
                continuation.finish()
            }
            var sum = 0
            for try await x in stream { sum &+= x }
            await producer.value
            blackHole(sum)
        }
    }
    let withHop = Row(AsyncGeneratorRows.group, "AsyncGenerator: one rj_await of a callback on another queue per element",
                      note: "no buffer: each element waits for its request") { n in
        AsyncGeneratorRows.hops(n, bufferingUpTo: 0)
    }
    let withHopBuffered = Row(AsyncGeneratorRows.group, "the same, AsyncGenerator(bufferingUpTo: 64)",
                              note: "the body runs ahead, as AsyncStream's producer does") { n in
        AsyncGeneratorRows.hops(n, bufferingUpTo: 64)
    }

    /// `n` elements, each after an `rj_await` of a callback on `otherQueue`, read with
    /// `for try await`.
    static func hops(_ n: Int, bufferingUpTo capacity: Int) {
        inTask {
            let gen = AsyncGenerator<Int, Void, Void>(bufferingUpTo: capacity) { y in
                for i in 0..<n {
                    let r = rj_await { callback in otherQueue.async { callback(i, nil) } }
                    try y.yield(r.value as! Int)
                }
            }
            var sum = 0
            for try await x in gen { sum &+= x }
            blackHole(sum)
        }
    }
    let streamWithHop = Row(AsyncGeneratorRows.group, "AsyncStream fed from a callback on another queue per element",
                            note: "each element yielded by the callback, which starts the next") { n in
        inTask {
            let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
            @Sendable func hop(_ i: Int) {
                if i == n {
                    continuation.finish()
                    return
                }
                otherQueue.async {
                    continuation.yield(i)
                    hop(i + 1)
                }
            }
            hop(0)
            var sum = 0
            for await x in stream { sum &+= x }
            blackHole(sum)
        }
    }
    let roundTrip = Row(AsyncGeneratorRows.group, "await gen.next(v) round trip", note: "Input Int, no await in the body") { n in
        inTask {
            let gen = AsyncGenerator<Int, Int, Void> { y in
                var x = 0
                while true { x = try y.yield(x &+ 1) }
            }
            var sum = 0
            _ = try await gen.next(0)
            for i in 0..<n { sum &+= try await gen.next(i).yieldedValue! }
            blackHole(sum)
        }
    }

    /// Resident memory per async generator suspended at its first `yield`, `count` alive.
    static func measureMemory(_ bench: Bench, count: Int) -> Row? {
        let name = "resident memory per suspended AsyncGenerator"
        guard bench.wanted(name), residentBytes() >= 0 else { return nil }
        progress("memory: \(count) suspended async generators")
        RJRuntime.drainStackPool()
        final class Alive: @unchecked Sendable { var gens: [AsyncGenerator<Int, Void, Void>] = [] }
        let alive = Alive()
        alive.gens.reserveCapacity(count)
        let before = residentBytes()
        inTask {
            for i in 0..<count {
                let g = AsyncGenerator<Int, Void, Void> { y in
                    try y.yield(i)
                    try y.yield(-i)
                }
                _ = try await g.next()
                alive.gens.append(g)
            }
        }
        let after = residentBytes()
        let row = Row(MemoryRows.group, name, note: "\(alive.gens.count) alive at once", unit: "KiB", nil)
        bench.record(row, Double(after - before) / Double(Swift.max(alive.gens.count, 1)) / 1024)
        alive.gens.removeAll()
        RJRuntime.drainStackPool()
        return row
    }
}

// MARK: Targets

extension AsyncGeneratorRows {
    func holdTargets(_ bench: Bench, switches s: SwitchRows, async a: AsyncRows) {
        bench.ratio("AsyncGenerator element (no await) / AsyncStream element", noAwait, over: a.asyncStream, target: 0.1)
        bench.ratio("AsyncGenerator element (no await) / AsyncThrowingStream element", noAwait, over: throwingStream, target: 0.1)
        bench.ratio("AsyncGenerator element (no await) / Generator.next", noAwait, over: s.generatorNext, target: 3.0)
        bench.ratio("the same, the loop in an actor / Generator.next", inActor, over: s.generatorNext, target: 3.0)
        bench.ratio("AsyncGenerator element through one pulling relay / read directly", relayOne, over: noAwait, target: 3.0)
        bench.ratio("AsyncGenerator element through one delegating relay / read directly", relayOneDelegating, over: noAwait, target: 3.0)
        bench.ratio("AsyncGenerator element through two pulling relays / read directly", relayTwo, over: noAwait, target: 5.0)
        bench.ratio("AsyncStream element read in a body (yieldAll) / read directly", streamInBody, over: streamDirect, target: nil,
                    "(information: each element a task started on the body's thread)")
        bench.ratio("AsyncGenerator element, one callback hop, buffered / AsyncStream fed by it", withHopBuffered,
                    over: streamWithHop, target: 1.0,
                    why: "the producer pays a thread wake about every fourth element, where AsyncStream's consumer rarely sleeps")
        bench.ratio("AsyncGenerator element, one callback hop, no buffer / a task awaiting the callback", withHop,
                    over: a.continuationHop, target: nil, "(information: each element waits for its request)")
        bench.ratio("await gen.next(v) / withCheckedContinuation", roundTrip, over: a.checkedContinuation, target: nil,
                    "(information)")
    }
}

/// Iterates an async generator from isolated code (`inActor`).
actor ElementLoop {
    func sum(_ gen: AsyncGenerator<Int, Void, Void>) async throws {
        var sum = 0
        for try await x in gen { sum &+= x }
        blackHole(sum)
    }
}
