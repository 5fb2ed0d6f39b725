import CRJBenchFloor
import Foundation
import RJIterator

/// Resident memory per suspended generator, and what creating and releasing cost with many
/// alive at once: `count` generators, each suspended at its first `yield`, in each stack mode;
/// beside the memory of V8's and Python's suspended generators and of suspended Swift tasks.
@MainActor
enum MemoryRows {
    static let group = "memory (many generators alive at once)"
    static let perGeneratorName = "resident memory per suspended generator"

    /// The rows of one stack mode.
    struct Mode {
        let perGenerator: Row
        let create: Row
        let release: Row
    }

    /// The rows that targets hold.
    struct Rows {
        let dedicated: Mode
        let shared: Mode?
        let freshPage: Row
        let pageBack: Row
        let v8: Row?
        let python: Row?
        let swiftTask: Row?
        let rjAsyncShared: Row?
    }

    /// Returns the rows, or nil when they were not wanted.
    @discardableResult
    static func measure(_ bench: Bench, count: Int) -> Rows? {
        guard bench.wanted(perGeneratorName), residentBytes() >= 0 else { return nil }
        // A dedicated stack keeps a page (4 KiB) per suspended generator: above a million, only
        // the shared-stack row takes the whole scale (--scale 10000000: ten million at once).
        let dedicatedCount = Swift.min(count, 1_000_000)
        let dedicated = generators(bench, count: dedicatedCount, mode: .dedicated)
        let shared = RJRuntime.sharedStacksAvailable ? generators(bench, count: count, mode: .shared) : nil
        // What any new stack's first page costs on this machine (a page fault and its zeroing),
        // as many pages as dedicated stacks were made: they are the floor under those rows (ten
        // million pages would be 40 GB).
        let freshPage = Row(group, "floor: first write to a fresh page", note: "\(dedicatedCount) pages, one every 320 KiB", nil)
        bench.record(freshPage, rj_bench_fresh_page_touch(UInt64(dedicatedCount)))
        let pageBack = Row(group, "floor: giving such a page back", note: "MADV_DONTNEED, one call per 64 pages", nil)
        bench.record(pageBack, rj_bench_page_give_back(UInt64(dedicatedCount)))
        let peerCount = bench.options.quick ? 100_000 : 1_000_000
        let v8 = peer(bench, "peer: V8, resident memory per suspended generator", "node", count: peerCount)
        let python = peer(bench, "peer: Python, resident memory per suspended generator", "python3", count: peerCount)
        let taskCount = bench.options.quick ? 20_000 : 100_000
        let swiftTask = swiftTasks(bench, count: taskCount)
        let rjAsyncShared = RJRuntime.sharedStacksAvailable ? rjAsyncBodies(bench, count: taskCount, mode: .shared) : nil
        _ = rjAsyncBodies(bench, count: taskCount, mode: .dedicated)
        return Rows(dedicated: dedicated, shared: shared, freshPage: freshPage, pageBack: pageBack, v8: v8, python: python,
                    swiftTask: swiftTask, rjAsyncShared: rjAsyncShared)
    }

    /// `count` generators of `mode` made, started and kept; then released.
    private static func generators(_ bench: Bench, count: Int, mode: StackMode) -> Mode {
        progress("memory: \(count) suspended generators, \(mode) stacks")
        RJRuntime.drainStackPool()
        var gens: [Generator<Int, Void, Void>] = []
        gens.reserveCapacity(count)
        let before = residentBytes()
        let t0 = now()
        var failure: Error?
        for i in 0..<count {
            let g = Generator<Int, Void, Void>(stackMode: mode) { y in
                try y.yield(i)
                try y.yield(-i)
            }
            do {
                _ = try g.next()
            } catch {
                failure = error
                break
            }
            gens.append(g)
        }
        let created = Double(now() - t0)
        let after = residentBytes()
        let alive = gens.count
        // What a dump costs with this many suspended: each read (held, walked) and named.
        let dumpName = "RJRuntime.dump(), per suspended generator" + (mode == .shared ? ", shared stacks" : "")
        if bench.wanted(dumpName) {
            let t = now()
            let dump = RJRuntime.dump()
            let elapsed = Double(now() - t)
            let listed = dump.coroutines.count
            bench.record(Row(group, dumpName, note: "\(alive) alive, \(listed) listed", nil), elapsed / Double(Swift.max(listed, 1)))
        }
        let t1 = now()
        gens.removeAll()
        let released = Double(now() - t1)
        RJRuntime.drainStackPool()
        rj_bench_trim_heap()
        let suffix = mode == .shared ? ", shared stacks" : ""
        var note = "\(alive) alive at once, peak \(after >> 20) MiB resident"
        if let failure { note += "; stopped: \(failure)" }
        let perGenerator = Row(group, perGeneratorName + suffix, note: note, unit: mode == .shared ? "B" : "KiB", nil)
        let bytes = Double(after - before) / Double(Swift.max(alive, 1))
        bench.record(perGenerator, mode == .shared ? bytes : bytes / 1024)
        let create = Row(group, "create + first next, \(alive) kept alive" + suffix, note: "per generator", nil)
        bench.record(create, created / Double(Swift.max(alive, 1)))
        let release = Row(group, "release of \(alive) suspended generators" + suffix, note: "per generator, closes each body", nil)
        bench.record(release, released / Double(Swift.max(alive, 1)))
        return Mode(perGenerator: perGenerator, create: create, release: release)
    }

    /// A peer's script (`Benchmarks/peers/memory.js|py`): bytes per suspended generator.
    private static func peer(_ bench: Bench, _ name: String, _ interpreter: String, count: Int) -> Row? {
        guard bench.wanted(name), !bench.options.noPeers, onPath(interpreter) else { return nil }
        progress("memory: \(name)")
        let script = interpreter == "node" ? "memory.js" : "memory.py"
        guard let text = runPeer(interpreter, script, [String(count)]),
              let bytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        let row = Row(group, name, note: "\(count) alive at once, Benchmarks/peers/\(script)", unit: "B", nil)
        bench.record(row, bytes)
        return row
    }

    /// `count` Swift tasks, each suspended in `withCheckedContinuation`: bytes per task.
    private static func swiftTasks(_ bench: Bench, count: Int) -> Row? {
        let name = "Swift Task suspended in withCheckedContinuation, resident memory per task"
        guard bench.wanted(name) else { return nil }
        progress("memory: \(count) suspended Swift tasks")
        final class Waiting: @unchecked Sendable {
            let lock = RJBenchLock()
            var continuations: [CheckedContinuation<Void, Never>] = []
        }
        let waiting = Waiting()
        let before = residentBytes()
        var tasks: [Task<Void, Never>] = []
        tasks.reserveCapacity(count)
        for _ in 0..<count {
            tasks.append(Task.detached {
                await withCheckedContinuation { c in waiting.lock.run { waiting.continuations.append(c) } }
            })
        }
        while waiting.lock.run({ waiting.continuations.count }) < count { usleep(1000) }
        let after = residentBytes()
        for c in waiting.lock.run({ waiting.continuations }) { c.resume() }
        waiting.lock.run { waiting.continuations = [] }
        let done = DispatchSemaphore(value: 0)
        let all = tasks
        Task.detached {
            for t in all { await t.value }
            done.signal()
        }
        done.wait()
        let row = Row(group, name, note: "\(count) suspended at once", unit: "B", nil)
        bench.record(row, Double(after - before) / Double(count))
        return row
    }

    /// `count` `rj_async` bodies of `mode`, each suspended in an `rj_await` of a callback not
    /// called yet: bytes per body.
    private static func rjAsyncBodies(_ bench: Bench, count: Int, mode: StackMode) -> Row? {
        let name = "rj_async body suspended in rj_await, resident memory per task, \(mode) stacks"
        guard bench.wanted(name) else { return nil }
        progress("memory: \(count) rj_async bodies, \(mode) stacks")
        final class Waiting: @unchecked Sendable {
            let lock = RJBenchLock()
            var callbacks: [RJAsyncCallback] = []
            var finished = 0
        }
        let waiting = Waiting()
        let queue = DispatchQueue(label: "rj_async bodies")
        let modeBefore = RJRuntime.defaultStackMode
        RJRuntime.defaultStackMode = mode
        RJRuntime.drainStackPool()
        let before = residentBytes()
        var tasks: [RJAsyncTask] = []
        tasks.reserveCapacity(count)
        for _ in 0..<count {
            tasks.append(rj_async(on: queue) {
                _ = rj_await { callback in waiting.lock.run { waiting.callbacks.append(callback) } }
                waiting.lock.run { waiting.finished += 1 }
            })
        }
        RJRuntime.defaultStackMode = modeBefore
        while waiting.lock.run({ waiting.callbacks.count }) < count { usleep(1000) }
        queue.sync {}
        let after = residentBytes()
        for callback in waiting.lock.run({ waiting.callbacks }) { callback(nil, nil) }
        waiting.lock.run { waiting.callbacks = [] }
        while waiting.lock.run({ waiting.finished }) < count { usleep(1000) }
        queue.sync {}
        tasks.removeAll()
        RJRuntime.drainStackPool()
        let row = Row(group, name, note: "\(count) suspended at once", unit: "B", nil)
        bench.record(row, Double(after - before) / Double(count))
        return row
    }
}

// MARK: Targets

extension MemoryRows.Rows {
    /// `asyncMemory`: an AsyncGenerator's memory per suspended one (AsyncGenerators/).
    @MainActor
    func holdTargets(_ bench: Bench, asyncMemory: Row?) {
        bench.bound(dedicated.perGenerator, "resident memory per suspended generator", below: 10)
        // Dedicated stacks at scale (issue 23): carved from slabs, no mapping per stack.
        bench.bound(dedicated.create, "create + first next with many alive", below: 2000,
                    why: "a new stack's first write is a page fault, over 2 µs on this machine (row \"floor: first write to a fresh page\")")
        bench.bound(dedicated.release, "release of a suspended generator with many alive", below: 1000,
                    why: "closing the body (a switch) and giving the stack's pages back to the system (a madvise per 64 pages)")
        bench.ratio("create with many alive / first write to a fresh page", dedicated.create, over: freshPage,
                    target: nil, "(information: a new stack's top page is a fresh page)")
        bench.ratio("release with many alive / giving a page back", dedicated.release, over: pageBack, target: nil,
                    "(information: a released stack's pages go back to the system)")
        if let shared {
            bench.bound(shared.perGenerator, "resident memory per suspended generator, shared stacks", below: 1024,
                        why: "five heap blocks: the generator, its closure context, its header, its frames, its array slot (docs/performance.md)")
            bench.bound(shared.create, "create + first next with many alive, shared stacks", below: 500,
                        why: "the heap grows into fresh pages: a quarter of a page fault a generator (row \"floor: first write to a fresh page\")")
            bench.bound(shared.release, "release of a suspended generator with many alive, shared stacks", below: 500)
            if let v8 {
                bench.ratio("memory per suspended generator, shared stacks / V8's", shared.perGenerator, over: v8, target: nil)
            }
            if let python {
                bench.ratio("memory per suspended generator, shared stacks / Python's", shared.perGenerator, over: python, target: nil)
            }
        }
        if let swiftTask, let rjAsyncShared {
            bench.ratio("memory per suspended rj_async body, shared stacks / per Swift Task", rjAsyncShared, over: swiftTask,
                        target: 1.0)
        }
        if let asyncMemory {
            bench.ratio("memory per suspended AsyncGenerator / per Generator", asyncMemory, over: dedicated.perGenerator,
                        target: 1.2)
        }
    }
}
