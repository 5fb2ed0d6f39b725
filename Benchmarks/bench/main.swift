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
var rows: [Row] = []
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
    FileHandle.standardError.write("bench: WARNING: debug build, figures are not representative\n".data(using: .utf8)!)
}

@inline(never)
func blackHole<T>(_ x: T) {}

func wanted(_ name: String) -> Bool {
    guard let f = options.filter else { return true }
    return f.split(separator: ",").contains { name.localizedCaseInsensitiveContains($0) }
}

@MainActor func add(_ group: String, _ name: String, note: String = "", _ body: (Int) -> Void) {
    guard wanted(name) else { return }
    rows.append(Row(group: group, name: name, unit: "ns", samples: measure(quick: options.quick, body), note: note))
}

// ---- Context switch --------------------------------------------------------------------

let switchGroup = "context switch (one round trip: resume + yield)"

if rj_fast_backend_available() != 0 {
    add(switchGroup, "C floor: raw fast switch", note: "assembly only, no bookkeeping") { n in
        blackHole(rj_bench_raw_round_trip(RJ_BACKEND_FAST, UInt64(n)))
    }
}
add(switchGroup, "C floor: raw swapcontext", note: "two swapcontext calls") { n in
    blackHole(rj_bench_raw_round_trip(RJ_BACKEND_UCONTEXT, UInt64(n)))
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

add(switchGroup, "Generator<Int, Int, Void>.next(i)", note: RJRuntime.contextBackend, generatorRoundTrip(ucontext: false))
add(switchGroup, "Generator.next(i), ucontext backend", note: "same binary, RJRuntime.useUContextBackend",
    generatorRoundTrip(ucontext: true))

do {
    let it = RJIterator {
        var x: Any? = 0
        while true { x = rj_yield(x) }
    }
    _ = it.next()
    add(switchGroup, "RJIterator.next(v)") { n in
        for i in 0..<n { blackHole(it.next(i)) }
    }
}

// ---- What a Swift user would pick instead ------------------------------------------------

let altGroup = "alternatives (same hand-off: one value out, one back)"

add(altGroup, "AsyncStream: per element", note: "unbounded buffer, producer and consumer tasks") { n in
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

add(altGroup, "withCheckedContinuation suspend/resume", note: "resumed at once, in a task") { n in
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

if wanted("thread + two semaphores") {
    let pp = PingPong()
    let thread = Thread {
        while true {
            pp.ping.wait()
            if pp.stop { break }
            pp.value &+= 1
            pp.pong.signal()
        }
    }
    thread.start()
    add(altGroup, "thread + two semaphores", note: "ping-pong between two threads") { n in
        for _ in 0..<n {
            pp.ping.signal()
            pp.pong.wait()
        }
    }
    pp.stop = true
    pp.ping.signal()
}

// ---- Lifecycle --------------------------------------------------------------------------

let lifeGroup = "lifecycle"

add(lifeGroup, "create + first next + release (pooled)", note: "body returns at once") { n in
    for i in 0..<n {
        let g = Generator<Int, Void, Int> { _ in i }
        blackHole(try! g.next())
    }
}

add(lifeGroup, "create + next + release while suspended", note: "release closes the body: one more switch") { n in
    for i in 0..<n {
        let g = Generator<Int, Void, Void> { y in try y.yield(i) }
        blackHole(try! g.next())
    }
}

if wanted("create + first next + release (no pool)") {
    let savedLimit = RJRuntime.stackPoolLimit
    RJRuntime.stackPoolLimit = 0
    add(lifeGroup, "create + first next + release (no pool)", note: "mmap + guard + munmap each time") { n in
        for i in 0..<n {
            let g = Generator<Int, Void, Int> { _ in i }
            blackHole(try! g.next())
        }
    }
    RJRuntime.stackPoolLimit = savedLimit
}

// ---- Memory -----------------------------------------------------------------------------

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

var memoryScale = options.scale ?? (options.quick ? 20_000 : 100_000)
var memoryPerGenerator = Double.nan
let memName = "resident memory per suspended generator"
if wanted(memName), residentBytes() >= 0 {
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
    memoryPerGenerator = Double(after - before) / Double(Swift.max(alive, 1)) / 1024
    var note = "\(alive) alive at once"
    if let failure { note += "; stopped: \(failure)" }
    rows.append(Row(group: "memory", name: memName, unit: "KiB", samples: [memoryPerGenerator], note: note))
    rows.append(Row(group: "memory", name: "create + first next, \(alive) kept alive", unit: "ns",
                    samples: [created / Double(Swift.max(alive, 1))], note: "per generator"))
    rows.append(Row(group: "memory", name: "release of \(alive) suspended generators", unit: "ns",
                    samples: [released / Double(Swift.max(alive, 1))], note: "per generator, closes each body"))
}

// ---- Promises: google/promises' own benchmark, with GCD beside it ------------------------

let promiseGroup = "promises (google/promises' benchmark; per run)"
let serialQueue = DispatchQueue(label: "bench.promises.serial")
let concurrentQueue = DispatchQueue(label: "bench.promises.concurrent", attributes: .concurrent)

add(promiseGroup, "GCD: 1 queue.async, then signal") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { done.signal() }
        done.wait()
    }
}
add(promiseGroup, "resolved promise + 1 then", note: "serial queue, the then signals") { n in
    let done = DispatchSemaphore(value: 0)
    for i in 0..<n {
        Promise(i).then(on: serialQueue) { _ in done.signal() }
        done.wait()
    }
}
add(promiseGroup, "GCD: 2 nested queue.async") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { serialQueue.async { done.signal() } }
        done.wait()
    }
}
add(promiseGroup, "resolved promise + 2 thens") { n in
    let done = DispatchSemaphore(value: 0)
    for i in 0..<n {
        Promise(i).then(on: serialQueue) { $0 + 1 }.then(on: serialQueue) { _ in done.signal() }
        done.wait()
    }
}
add(promiseGroup, "GCD: 3 nested queue.async") { n in
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<n {
        serialQueue.async { serialQueue.async { serialQueue.async { done.signal() } } }
        done.wait()
    }
}
add(promiseGroup, "resolved promise + 3 thens") { n in
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

add(promiseGroup, "GCD: 10,000 blocks on a concurrent queue", note: "per block; group wait") { n in
    inBatches(n) { size in
        let group = DispatchGroup()
        for _ in 0..<size {
            group.enter()
            concurrentQueue.async { group.leave() }
        }
        group.wait()
    }
}
add(promiseGroup, "10,000 pending promises + then, resolved in a loop", note: "per promise; concurrent queue") { n in
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

// ---- rj_async / rj_await ----------------------------------------------------------------

let asyncGroup = "rj_async / rj_await (per await)"
let bodyQueue = DispatchQueue(label: "bench.async.body")
let otherQueue = DispatchQueue(label: "bench.async.other")

/// Runs `body` in rj_async on `bodyQueue` and waits until it has finished.
func runAsyncBody(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    rj_async(on: bodyQueue, body).finally { done.signal() }
    done.wait()
}

add(asyncGroup, "rj_await of an already-completed task", note: "callback called inside the task closure") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n { sum &+= rj_await { callback in callback(i, nil) }.value as! Int }
        blackHole(sum)
    }
}
add(asyncGroup, "rj_await of a callback fired on another queue", note: "the hop there and back") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n {
            sum &+= rj_await { callback in otherQueue.async { callback(i, nil) } }.value as! Int
        }
        blackHole(sum)
    }
}
add(asyncGroup, "bare DispatchQueue.async round trip", note: "body queue -> other queue -> body queue") { n in
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
add(asyncGroup, "withCheckedContinuation, same flow", note: "a task awaiting a callback on another queue") { n in
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
add(asyncGroup, "rj_await of a fulfilled promise") { n in
    runAsyncBody {
        var sum = 0
        for i in 0..<n { sum &+= rj_await(Promise(i)).value as! Int }
        blackHole(sum)
    }
}

// ---- Reactive nodes: EasyReact's benchmark ----------------------------------------------

let nodeGroup = "reactive nodes (per value set)"
final class BenchOwner: Sendable {}
let nodeOwner = BenchOwner()

add(nodeGroup, "floor: 10 closures called directly", note: "what a listener call cannot beat") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let closures: [@Sendable (Int) -> Void] = (0..<10).map { k in { sink.sum &+= $0 &+ k } }
    for i in 0..<n {
        for c in closures { c(i) }
    }
    blackHole(sink.sum)
}
add(nodeGroup, "node with 10 listeners") { n in
    final class Sink: @unchecked Sendable { var sum = 0 }
    let sink = Sink()
    let node = MutableNode(0)
    var listening: [any Cancelable] = []
    for k in 0..<10 { listening.append(node.listenedBy(nodeOwner).withBlock { sink.sum &+= $0 &+ k }) }
    for i in 0..<n { node.value = i }
    for l in listening { l.cancel() }
    blackHole(sink.sum)
}
add(nodeGroup, "node -> map -> filter with 10 listeners") { n in
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

// ---- Targets ----------------------------------------------------------------------------

@MainActor func median(_ name: String) -> Double? { rows.first { $0.name == name }?.median }
var ratios: [Ratio] = []
if let g = median("Generator<Int, Int, Void>.next(i)"), let c = median("C floor: raw fast switch") {
    ratios.append(Ratio(name: "Generator.next / raw fast switch", value: g / c, target: "<= 1.5x", met: g / c <= 1.5))
}
if let g = median("Generator.next(i), ucontext backend"), let c = median("C floor: raw swapcontext") {
    ratios.append(Ratio(name: "Generator.next (ucontext) / raw swapcontext", value: g / c, target: "(information)", met: nil))
}
if let g = median("Generator<Int, Int, Void>.next(i)") {
    for alt in ["AsyncStream: per element", "withCheckedContinuation suspend/resume", "thread + two semaphores"] {
        if let a = median(alt) {
            ratios.append(Ratio(name: "\(alt) / Generator.next", value: a / g, target: "(information: >1 means Generator is faster)", met: nil))
        }
    }
}
for (promise, gcd, target) in [
    ("resolved promise + 1 then", "GCD: 1 queue.async, then signal", 1.25),
    ("resolved promise + 2 thens", "GCD: 2 nested queue.async", 1.5),
    ("resolved promise + 3 thens", "GCD: 3 nested queue.async", 1.5),
    ("10,000 pending promises + then, resolved in a loop", "GCD: 10,000 blocks on a concurrent queue", 2.0),
] {
    if let p = median(promise), let g = median(gcd) {
        ratios.append(Ratio(name: "\(promise) / GCD", value: p / g, target: String(format: "<= %.2fx", target), met: p / g <= target))
    }
}
if let hop = median("rj_await of a callback fired on another queue"), let bare = median("bare DispatchQueue.async round trip") {
    ratios.append(Ratio(name: "rj_await hop / bare DispatchQueue.async round trip", value: hop / bare,
                        target: "<= 1.30x", met: hop / bare <= 1.3))
}
if let node = median("node with 10 listeners"), let floor = median("floor: 10 closures called directly") {
    ratios.append(Ratio(name: "node with 10 listeners / direct calls", value: node / floor, target: "<= 3.00x",
                        met: node / floor <= 3))
}
if let c = median("create + first next + release (pooled)") {
    ratios.append(Ratio(name: "create + run + release (pooled)", value: c, unit: "ns", target: "< 200 ns", met: c < 200))
}
if memoryPerGenerator.isFinite {
    ratios.append(Ratio(name: "resident memory per suspended generator", value: memoryPerGenerator, unit: "KiB",
                        target: "<= 10 KiB", met: memoryPerGenerator <= 10))
}

if options.json {
    printJSON(rows, ratios, meta: [
        "backend": RJRuntime.contextBackend, "optimized": optimized ? "yes" : "no",
        "quick": options.quick ? "yes" : "no", "scale": "\(memoryScale)",
    ])
} else {
    printTable(rows, ratios, header: header)
}
