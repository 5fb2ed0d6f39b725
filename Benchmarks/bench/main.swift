// swift run -c release bench [--quick] [--json] [--filter NAME] [--scale N]
//
// Every figure in README.md and docs/performance.md comes from this program. Each row is
// nanoseconds per operation: the median of repeated samples (15, or 5 with --quick) after a
// warm-up, with min and max. Ratios are computed between rows of the same run.
import CRJContext
import Dispatch
import Foundation
import RJIterator
import RJNodes
import RJPromises

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let bench = Bench(options: options)
var header: [String] = []

/// `assert` runs only in unoptimised builds: the classic way to ask how this was built.
func builtWithOptimization() -> Bool {
    var optimized = true
    assert({ optimized = false; return true }())
    return optimized
}
let optimized = builtWithOptimization()

// Run one generator first, so the header reports what the first stack found out.
_ = try? Generator<Int, Void, Void> { y in try y.yield(0) }.next()
header.append("RJIterator benchmark")
header.append("backend: \(RJRuntime.contextBackend)   guard: \(RJRuntime.guardUsesMadvise ? "MADV_GUARD_INSTALL" : "mprotect")   exclusivity: \(rj_exclusivity_fast_path() != 0 ? "inline check" : "runtime calls")   default stack: \(RJRuntime.defaultStackSize / 1024) KiB")
header.append("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
if !optimized {
    header.append("WARNING: built without optimisation; run `swift run -c release bench` for real figures")
    progress("WARNING: debug build, figures are not representative")
}

@inline(never)
func blackHole<T>(_ x: T) {}

// ---- Context switch, and what costs about one ---------------------------------------------
// One interleaved set: every target below that compares two of these rows takes both from the
// same rounds.

let switchGroup = "context switch (one round trip: resume + yield) and its neighbours"

let rawFast = Row(switchGroup, "C floor: raw fast switch (call/ret)", note: "out of line, saves MXCSR/x87 CW, ret onto the other stack",
                  rj_bench_floor(RJ_FLOOR_CALL_RET, 1) >= 0 ? { n in blackHole(rj_bench_floor(RJ_FLOOR_CALL_RET, UInt64(n))) } : nil)
let rawInline = Row(switchGroup, "C floor: inline switch (pop/jmp)", note: "what Generator switches with",
                    rj_bench_floor(RJ_FLOOR_INLINE, 1) >= 0 ? { n in blackHole(rj_bench_floor(RJ_FLOOR_INLINE, UInt64(n))) } : nil)
let rawInlineFPU = Row(switchGroup, "C floor: inline switch + FPU control kept per side",
                       note: "stmxcsr/fnstcw, restored only when changed",
                       rj_bench_floor(RJ_FLOOR_INLINE_FPU, 1) >= 0 ? { n in blackHole(rj_bench_floor(RJ_FLOOR_INLINE_FPU, UInt64(n))) } : nil)
let rawUContext = Row(switchGroup, "C floor: raw swapcontext", note: "two swapcontext calls") { n in
    blackHole(rj_bench_floor(RJ_FLOOR_UCONTEXT, UInt64(n)))
}

func generatorRoundTrip(ucontext: Bool) -> (Int) -> Void {
    RJRuntime.useUContextBackend(ucontext)
    let gen = Generator<Int, Int, Void> { y in
        var x = 0
        while true { x = try y.yield(x &+ 1) }
    }
    RJRuntime.useUContextBackend(false)
    _ = try! gen.next(0)
    return { n in
        var sum = 0
        for i in 0..<n {
            if case .yielded(let v) = try! gen.next(i) { sum &+= v }
        }
        blackHole(sum)
    }
}

let generatorNext = Row(switchGroup, "Generator<Int, Int, Void>.next(i)", note: RJRuntime.contextBackend,
                        generatorRoundTrip(ucontext: false))
let generatorNextUContext = Row(switchGroup, "Generator.next(i), ucontext backend",
                                note: "same binary, RJRuntime.useUContextBackend", generatorRoundTrip(ucontext: true))

let seedIterator = RJIterator {
    var x: Any? = 0
    while true { x = rj_yield(x) }
}
_ = seedIterator.next()
let rjIteratorNext = Row(switchGroup, "RJIterator.next(v)", note: "an Int as Any?, in and out") { n in
    for i in 0..<n { blackHole(seedIterator.next(i)) }
}

/// The value traffic of the `RJIterator.next(v)` row without a switch: an `Any?` in, the
/// previous one out in an `RJResult`, the state kept in a field. What any API shaped like the
/// seed's pays for its untyped values in plain Swift.
final class AnyEcho {
    @exclusivity(unchecked) var x: Any? = 0
    @inline(never) func next(_ value: consuming Any?) -> RJResult {
        let out = x
        x = value
        return RJResult(value: out, done: false)
    }
}
let anyEcho = AnyEcho()
let anyEchoNext = Row(switchGroup, "the same Any? traffic, plain method call", note: "no switch: what the values cost") { n in
    for i in 0..<n { blackHole(anyEcho.next(i)) }
}

let createRunRelease = Row(switchGroup, "create + first next + release (pooled)", note: "body returns at once") { n in
    for i in 0..<n {
        let g = Generator<Int, Void, Int> { _ in i }
        blackHole(try! g.next())
    }
}

/// What the previous row allocates, without a coroutine: an object holding a closure that
/// captures the loop's index (a generator and its body), made, called once and freed.
final class AllocationsOnly {
    let body: () -> Int
    init(_ body: @escaping () -> Int) { self.body = body }
}
/// Where each object goes, so that the optimiser cannot keep it on the stack: the next store
/// frees the previous one.
nonisolated(unsafe) var allocationsSink: AllocationsOnly?
let allocationsOnly = Row(switchGroup, "the same two allocations, no coroutine", note: "an object and a closure context") { n in
    for i in 0..<n {
        let object = AllocationsOnly { i }
        blackHole(object.body())
        allocationsSink = object
    }
    allocationsSink = nil
}

let asyncGroup = "rj_async / rj_await (per await)"
let bodyQueue = DispatchQueue(label: "bench.async.body")
let otherQueue = DispatchQueue(label: "bench.async.other")

/// Runs `body` in rj_async on `bodyQueue` and waits until it has finished.
func runAsyncBody(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    rj_async(on: bodyQueue, body).finally { done.signal() }
    done.wait()
}

let awaitCompleted = Row(switchGroup, "rj_await of an already-completed task", note: "callback called inside the task closure") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n { sum &+= rj_await { callback in callback(i, nil) }.value as! Int }
        blackHole(sum)
    }
}
let awaitFulfilled = Row(switchGroup, "rj_await of a fulfilled promise") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n { sum &+= rj_await(Promise(i)).value as! Int }
        blackHole(sum)
    }
}

let asyncStream = Row(switchGroup, "AsyncStream: per element", note: "unbounded buffer, producer and consumer tasks") { n in
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
        let producer = Task {
            for i in 0..<n { continuation.yield(i) }
            continuation.finish()
        }
        var sum = 0
        for await x in stream { sum &+= x }
        await producer.value
        blackHole(sum)
        done.signal()
    }
    done.wait()
}

let checkedContinuation = Row(switchGroup, "withCheckedContinuation suspend/resume", note: "resumed at once, in a task") { n in
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var sum = 0
        for i in 0..<n {
            sum &+= await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in c.resume(returning: i) }
        }
        blackHole(sum)
        done.signal()
    }
    done.wait()
}

final class PingPong: @unchecked Sendable {
    let ping = DispatchSemaphore(value: 0)
    let pong = DispatchSemaphore(value: 0)
    var stop = false
    var value = 0
}
/// Runs a peer's script (Benchmarks/peers/) and reads the nanoseconds per round trip it prints;
/// nil when the interpreter is not on the PATH or the script fails.
func peerSample(_ interpreter: String, _ script: String, _ iterations: Int) -> Double? {
    let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("peers")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [interpreter, peers.appendingPathComponent(script).path, String(iterations)]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

/// Whether `tool` is on the PATH.
func onPath(_ tool: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
    }
}

let v8Generator = Row(switchGroup, "peer: V8 generator next(v) (node)", note: "Benchmarks/peers/generator.js, loop included",
                      sampler: onPath("node") ? { peerSample("node", "generator.js", 2_000_000) } : nil)
let pythonGenerator = Row(switchGroup, "peer: Python generator send(v) (python3)",
                          note: "Benchmarks/peers/generator.py, loop included",
                          sampler: onPath("python3") ? { peerSample("python3", "generator.py", 300_000) } : nil)
for (tool, row) in [("node", v8Generator), ("python3", pythonGenerator)] where !onPath(tool) && bench.wanted(row.name) {
    progress("\(row.name): skipped, \(tool) is not on the PATH")
}

let pingPong = PingPong()
let semaphores = Row(switchGroup, "thread + two semaphores", note: "ping-pong between two threads") { n in
    for _ in 0..<n {
        pingPong.ping.signal()
        pingPong.pong.wait()
    }
}
if bench.wanted(semaphores.name) {
    Thread {
        while true {
            pingPong.ping.wait()
            if pingPong.stop { break }
            pingPong.value &+= 1
            pingPong.pong.signal()
        }
    }.start()
}

bench.measure([rawFast, rawInline, rawInlineFPU, rawUContext, v8Generator, pythonGenerator, generatorNext, generatorNextUContext, rjIteratorNext, anyEchoNext, createRunRelease,
               allocationsOnly, awaitCompleted, awaitFulfilled, asyncStream, checkedContinuation, semaphores])
if bench.wanted(semaphores.name) {
    pingPong.stop = true
    pingPong.ping.signal()
}

// ---- Lifecycle --------------------------------------------------------------------------

let lifeGroup = "lifecycle"

let createSuspendedRelease = Row(lifeGroup, "create + next + release while suspended",
                                 note: "release closes the body: one more switch") { n in
    for i in 0..<n {
        let g = Generator<Int, Void, Void> { y in try y.yield(i) }
        blackHole(try! g.next())
    }
}
let createNoPool = Row(lifeGroup, "create + first next + release (no pool)", note: "mmap + guard + munmap each time") { n in
    let savedLimit = RJRuntime.stackPoolLimit
    RJRuntime.stackPoolLimit = 0
    defer { RJRuntime.stackPoolLimit = savedLimit }
    for i in 0..<n {
        let g = Generator<Int, Void, Int> { _ in i }
        blackHole(try! g.next())
    }
}
bench.measure([createSuspendedRelease, createNoPool])

// ---- Memory -----------------------------------------------------------------------------

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let memoryScale = options.scale ?? (options.quick ? 20_000 : 100_000)
let memoryRow = Row("memory", "resident memory per suspended generator", unit: "KiB", nil)
if bench.wanted(memoryRow.name), residentBytes() >= 0 {
    progress("memory: \(memoryScale) suspended generators")
    let n = memoryScale
    RJRuntime.drainStackPool()
    var gens: [Generator<Int, Void, Void>] = []
    gens.reserveCapacity(n)
    let before = residentBytes()
    let t0 = now()
    var failure: Error?
    for i in 0..<n {
        let g = Generator<Int, Void, Void> { y in
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
    let t1 = now()
    gens.removeAll()
    let released = Double(now() - t1)
    RJRuntime.drainStackPool()
    var note = "\(alive) alive at once"
    if let failure { note += "; stopped: \(failure)" }
    let perGenerator = Row("memory", memoryRow.name, note: note, unit: "KiB", nil)
    bench.record(perGenerator, Double(after - before) / Double(Swift.max(alive, 1)) / 1024)
    bench.record(Row("memory", "create + first next, \(alive) kept alive", note: "per generator", nil),
                 created / Double(Swift.max(alive, 1)))
    bench.record(Row("memory", "release of \(alive) suspended generators", note: "per generator, closes each body", nil),
                 released / Double(Swift.max(alive, 1)))
    bench.bound(perGenerator, "resident memory per suspended generator", below: 10)
}

// ---- Promises: google/promises' own benchmark, with GCD beside it ------------------------

let promiseGroup = "promises (google/promises' benchmark; per run)"
let serialQueue = DispatchQueue(label: "bench.promises.serial")
let concurrentQueue = DispatchQueue(label: "bench.promises.concurrent", attributes: .concurrent)

let gcd1 = Row(promiseGroup, "GCD: 1 queue.async, then signal") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { done.signal() }
        done.wait()
    }
}
let promise1 = Row(promiseGroup, "resolved promise + 1 then", note: "serial queue, the then signals") { n in
    let done = DispatchSemaphore(value: 0)
    for i in 0..<n {
        Promise(i).then(on: serialQueue) { _ in done.signal() }
        done.wait()
    }
}
let gcd2 = Row(promiseGroup, "GCD: 2 nested queue.async") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { serialQueue.async { done.signal() } }
        done.wait()
    }
}
let promise2 = Row(promiseGroup, "resolved promise + 2 thens") { n in
    let done = DispatchSemaphore(value: 0)
    for i in 0..<n {
        Promise(i).then(on: serialQueue) { $0 + 1 }.then(on: serialQueue) { _ in done.signal() }
        done.wait()
    }
}
let gcd3 = Row(promiseGroup, "GCD: 3 nested queue.async") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { serialQueue.async { serialQueue.async { done.signal() } } }
        done.wait()
    }
}
let promise3 = Row(promiseGroup, "resolved promise + 3 thens") { n in
    let done = DispatchSemaphore(value: 0)
    for i in 0..<n {
        Promise(i).then(on: serialQueue) { $0 + 1 }.then(on: serialQueue) { $0 + 1 }
            .then(on: serialQueue) { _ in done.signal() }
        done.wait()
    }
}

/// Runs `n` operations in batches of 10,000, google/promises' batch size.
func inBatches(_ n: Int, _ batch: (Int) -> Void) {
    var left = n
    while left > 0 {
        let size = min(left, 10_000)
        batch(size)
        left -= size
    }
}

let gcdMany = Row(promiseGroup, "GCD: 10,000 blocks on a concurrent queue", note: "per block; group wait") { n in
    inBatches(n) { size in
        let group = DispatchGroup()
        for _ in 0..<size {
            group.enter()
            concurrentQueue.async { group.leave() }
        }
        group.wait()
    }
}
/// GCD's 10,000 blocks with what the promise row allocates besides the block and its
/// closure: three more objects per block (the promise, the derived promise and the `then`'s
/// closure there), made in the loop and freed on the worker that runs the block.
let gcdManyAllocating = Row(promiseGroup, "GCD: 10,000 blocks + 3 objects each", note: "a pending promise's allocations, no promise") { n in
    final class Object: @unchecked Sendable { var x = 0 }
    inBatches(n) { size in
        let group = DispatchGroup()
        for _ in 0..<size {
            group.enter()
            let objects = (Object(), Object(), Object())
            concurrentQueue.async {
                blackHole(objects)
                group.leave()
            }
        }
        group.wait()
    }
}
let promiseMany = Row(promiseGroup, "10,000 pending promises + then, resolved in a loop", note: "per promise; concurrent queue") { n in
    inBatches(n) { size in
        let group = DispatchGroup()
        var promises: [Promise<Int>] = []
        promises.reserveCapacity(size)
        for _ in 0..<size {
            let p = Promise<Int>.pending()
            group.enter()
            p.then(on: concurrentQueue) { _ in group.leave() }
            promises.append(p)
        }
        for (i, p) in promises.enumerated() { p.fulfill(i) }
        group.wait()
    }
}
for (a, b) in [(gcd1, promise1), (gcd2, promise2), (gcd3, promise3)] { bench.measure([a, b]) }
bench.measure([gcdMany, promiseMany, gcdManyAllocating])

// ---- rj_await across queues ---------------------------------------------------------------

let awaitHop = Row(asyncGroup, "rj_await of a callback fired on another queue", note: "the hop there and back") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n {
            sum &+= rj_await { callback in otherQueue.async { callback(i, nil) } }.value as! Int
        }
        blackHole(sum)
    }
}
let bareHop = Row(asyncGroup, "bare DispatchQueue.async round trip", note: "body queue -> other queue -> body queue") { n in
    let done = DispatchSemaphore(value: 0)
    final class Hops: @unchecked Sendable {
        let n: Int
        let done: DispatchSemaphore
        init(_ n: Int, _ done: DispatchSemaphore) { self.n = n; self.done = done }
        func step(_ i: Int) {
            if i == n {
                done.signal()
                return
            }
            otherQueue.async { bodyQueue.async { self.step(i + 1) } }
        }
    }
    let hops = Hops(n, done)
    bodyQueue.async { hops.step(0) }
    done.wait()
}
let continuationHop = Row(asyncGroup, "withCheckedContinuation, same flow", note: "a task awaiting a callback on another queue") { n in
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var sum = 0
        for i in 0..<n {
            sum &+= await withCheckedContinuation { (c: CheckedContinuation<Int, Never>) in
                otherQueue.async { c.resume(returning: i) }
            }
        }
        blackHole(sum)
        done.signal()
    }
    done.wait()
}
bench.measure([awaitHop, bareHop, continuationHop])

// ---- Reactive nodes: EasyReact's benchmark ----------------------------------------------

let nodeGroup = "reactive nodes (per value set)"
final class BenchOwner: Sendable {}
let nodeOwner = BenchOwner()

let directCalls = Row(nodeGroup, "floor: 10 closures called directly", note: "what a listener call cannot beat") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let closures: [@Sendable (Int) -> Void] = (0..<10).map { k in { sink.sum &+= $0 &+ k } }
    for i in 0..<n {
        for c in closures { c(i) }
    }
    blackHole(sink.sum)
}
let nodeListeners = Row(nodeGroup, "node with 10 listeners") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let node = MutableNode(0)
    var listening: [any Cancelable] = []
    for k in 0..<10 { listening.append(node.listenedBy(nodeOwner).withBlock { sink.sum &+= $0 &+ k }) }
    for i in 0..<n { node.value = i }
    for l in listening { l.cancel() }
    blackHole(sink.sum)
}
let nodeChain = Row(nodeGroup, "node -> map -> filter with 10 listeners") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let node = MutableNode(0)
    let last = node.map { $0 &* 2 }.filter { $0 % 4 == 0 }
    var listening: [any Cancelable] = []
    for k in 0..<10 { listening.append(last.listenedBy(nodeOwner).withBlock { sink.sum &+= $0 &+ k }) }
    for i in 0..<n { node.value = i }
    for l in listening { l.cancel() }
    blackHole(sink.sum)
}
let nodeDiamond = Row(nodeGroup, "diamond of 4 nodes (a -> b, c -> combine), 1 listener",
                      note: "glitch-free: the combine runs once per set") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let a = MutableNode(0)
    let d = combine(a.map { $0 &+ 1 }, a.map { $0 &* 2 })
    let listening = d.listenedBy(nodeOwner).withBlock { sink.sum &+= $0.0 &+ $0.1 }
    for i in 0..<n { a.value = i }
    listening.cancel()
    blackHole(sink.sum)
}
let nodeCombine = Row(nodeGroup, "combine of 2 nodes, 1 listener", note: "one input set per step") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let a = MutableNode(0)
    let b = MutableNode(0)
    let listening = combine(a, b).listenedBy(nodeOwner).withBlock { sink.sum &+= $0.0 &+ $0.1 }
    for i in 0..<n { a.value = i }
    listening.cancel()
    blackHole(sink.sum)
}
bench.measure([directCalls, nodeListeners, nodeChain, nodeDiamond, nodeCombine])

bench.checkSomethingRan()

// ---- Targets ----------------------------------------------------------------------------

bench.ratio("Generator.next / raw fast switch (call/ret)", generatorNext, over: rawFast, target: 1.3)
bench.ratio("Generator.next / inline switch", generatorNext, over: rawInline, target: nil)
bench.ratio("Generator.next / V8 generator next", generatorNext, over: v8Generator, target: 1.0)
bench.ratio("RJIterator.next / Python generator send", rjIteratorNext, over: pythonGenerator, target: 1.0)
bench.ratio("RJIterator.next / Generator.next", rjIteratorNext, over: generatorNext, target: 2.0)
bench.ratio("RJIterator.next / its Any? traffic without a switch", rjIteratorNext, over: anyEchoNext, target: nil)
bench.ratio("create + run + release / raw fast switch", createRunRelease, over: rawFast, target: 5.0)
bench.ratio("create + run + release / its allocations alone", createRunRelease, over: allocationsOnly, target: nil)
bench.ratio("the allocations alone / raw fast switch", allocationsOnly, over: rawFast, target: nil)
bench.ratio("rj_await, completed task / Generator.next", awaitCompleted, over: generatorNext, target: 8.0)
bench.ratio("rj_await, fulfilled promise / Generator.next", awaitFulfilled, over: generatorNext, target: 8.0)
bench.ratio("Generator.next, ucontext / raw swapcontext", generatorNextUContext, over: rawUContext, target: nil)
for (label, alternative) in [("AsyncStream", asyncStream), ("withCheckedContinuation", checkedContinuation),
                             ("thread + semaphores", semaphores)] {
    bench.ratio("\(label) / Generator.next", alternative, over: generatorNext, target: nil,
                "(information: > 1 means Generator is faster)")
}
bench.ratio("promise + 1 then / GCD", promise1, over: gcd1, target: 1.25)
bench.ratio("promise + 2 thens / GCD", promise2, over: gcd2, target: 1.5)
bench.ratio("promise + 3 thens / GCD", promise3, over: gcd3, target: 1.5)
bench.ratio("10,000 pending promises / GCD", promiseMany, over: gcdMany, target: 1.5)
bench.ratio("GCD + 3 objects each / GCD", gcdManyAllocating, over: gcdMany, target: nil,
            "(information: the allocations alone)")
bench.ratio("10,000 pending promises / GCD + 3 objects each", promiseMany, over: gcdManyAllocating, target: nil,
            "(information: what the promises add)")
bench.ratio("rj_await hop / bare round trip", awaitHop, over: bareHop, target: 1.2)
bench.ratio("node, 10 listeners / direct calls", nodeListeners, over: directCalls, target: nil,
            "(information: must not grow; was 2.5x-4x)")

if options.json {
    printJSON(bench.rows, bench.ratios, meta: [
        ("backend", .string(RJRuntime.contextBackend)), ("optimized", .bool(optimized)), ("quick", .bool(options.quick)),
        ("scale", .number(Double(memoryScale))), ("machine", .string(header[2])),
    ])
} else {
    printTable(bench.rows, bench.ratios, header: header)
}
