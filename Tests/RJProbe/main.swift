// A small program the tests run in a child process, for behaviour that ends the process or
// only shows on stderr. Each mode does one thing; see ProbeTests.swift for what is expected.
import CRJContext
import Foundation
import RJIterator
import RJNodes
import RJPromises
import RJProbeSupport

/// Moves a value to another thread in a probe that makes sure the two never touch it at once.
final class UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

final class ResultSlot<T> { var value: T? }

/// Asks `gen` for one value from a detached task, which takes its reference out of a box and
/// drops it before it signals: the caller's reference is then the last, and its release closes
/// the generator on the caller's thread (a reference the task's closure kept would be dropped on
/// the task's thread at a time of its own, racing the rest of the probe).
func nextOnce(_ gen: AsyncGenerator<Int, Void, Void>) -> Int? {
    let done = DispatchSemaphore(value: 0)
    let first = UnsafeTransfer(ResultSlot<Int>())
    let handOver = UnsafeTransfer(ResultSlot<AsyncGenerator<Int, Void, Void>>())
    handOver.value.value = gen
    Task.detached {
        var g = handOver.value.value
        handOver.value.value = nil
        first.value.value = try? await g?.next().yieldedValue
        g = nil
        done.signal()
    }
    done.wait()
    return first.value.value
}

/// Unbuffered, so what was said survives a crash.
func say(_ text: String) {
    FileHandle.standardOutput.write((text + "\n").data(using: .utf8)!)
}

@inline(never)
func probeParseLine(_ y: Yielder<Int, Void>) throws {
    try y.yield(1)
    say("parsed")
}

/// Takes the address of a frame's buffer after the recursive call: the frame must really exist,
/// so the optimiser cannot turn the recursion into a loop.
@inline(never)
func touch(_ buffer: UnsafeMutableRawBufferPointer) {
    buffer[0] &+= 1
}

@inline(never)
func recurse(_ n: Int) -> Int {
    var pad = (n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n)
    let below = n > Int(CommandLine.argc) + 1_000_000_000 ? 0 : recurse(n + 1)
    withUnsafeMutableBytes(of: &pad) { touch($0) }
    return below &+ pad.0
}

func overflowInGenerator() {
    let gen = Generator<Int, Void, Int>(stackSize: 64 * 1024) { _ in recurse(0) }
    // The result is printed so that an optimised build cannot drop the (pure) recursion.
    say("\(String(describing: try? gen.next()))")
}

let mode = CommandLine.arguments.dropFirst().first ?? ""
switch mode {
case "overflow":
    overflowInGenerator()
case "overflow-thread":
    let thread = Thread { overflowInGenerator() }
    thread.start()
    Thread.sleep(forTimeInterval: 30)
case "overflow-default-size":
    let gen = Generator<Int, Void, Int>(stackMode: .dedicated) { _ in recurse(0) }
    say("\(String(describing: try? gen.next()))")
case "overflow-shared":
    let gen = Generator<Int, Void, Int>(stackMode: .shared) { _ in recurse(0) }
    say("\(String(describing: try? gen.next()))")
case "stack-size-with-shared":
    _ = Generator<Int, Void, Void>(stackSize: 64 * 1024, stackMode: .shared) { _ in }
case "overflow-rj-async":
    let queue = DispatchQueue(label: "probe")
    rj_async(on: queue) { say("\(recurse(0))") }
    Thread.sleep(forTimeInterval: 30)
case "overflow-async-generator":
    let gen = AsyncGenerator<Int, Void, Void> { y in try y.yield(recurse(0)) }
    let done = DispatchSemaphore(value: 0)
    Task.detached { _ = try? await gen.next(); done.signal() }
    done.wait()
case "overflow-ucontext":
    RJRuntime.useUContextBackend(true)
    overflowInGenerator()
case "big-frame":
    // A 40 KiB frame in a 16 KiB stack jumps over a guard smaller than 40 KiB: the default
    // guard (64 KiB) must catch it, with the overflow message.
    let gen = Generator<Int, Void, Int>(stackSize: 16 * 1024) { _ in Int(rj_probe_big_frame()) }
    say("\(String(describing: try? gen.next()))")
case "write-below-stack", "write-guard-bottom":
    // A write just below the usable stack, or at the lowest byte of the guard.
    let bottomOfGuard = mode == "write-guard-bottom"
    let gen = Generator<Int, Void, Void>(stackSize: 64 * 1024) { _ in
        let lowest = UnsafeMutableRawPointer(rj_coro_stack_bottom(rj_coro_current()!))
        rj_probe_poke(lowest - (bottomOfGuard ? RJRuntime.guardSize : 1))
    }
    _ = try? gen.next()
case "raise-segv", "kill-segv", "sigqueue-segv", "raise-bus":
    // A signal that was sent, not caused by a fault, after the handler is installed: the
    // process must die of it as it would without the package.
    let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
    _ = try? gen.next()
    switch mode {
    case "raise-segv": raise(SIGSEGV)
    case "kill-segv": kill(getpid(), SIGSEGV)
    case "raise-bus": raise(SIGBUS)
    default: sigqueue(getpid(), SIGSEGV, sigval(sival_int: 0))
    }
    Thread.sleep(forTimeInterval: 1)
    say("survived the signal")
case "segv-elsewhere":
    // Prime the handler, then fault outside any generator stack: the previous handler
    // (Swift's, or the default action) must get it, without our overflow message.
    let gen = Generator<Int, Void, Void> { y in try y.yield(1) }
    _ = try? gen.next()
    let bad = UnsafeMutablePointer<Int>(bitPattern: 0x10)!
    bad.pointee = 1
case "forin-throws":
    struct Boom: Error {}
    say("made at line \(#line + 1)")
    let gen = Generator<Int, Void, Void> { y in
        try y.yield(1)
        throw Boom()
    }
    for x in gen { say("got \(x)") }
case "forin-reads-itself":
    // A body that reads its own generator with an inner for-in: that loop's next() throws
    // alreadyRunning, the body ends with it, and the outer for-in (outside any body) stops.
    nonisolated(unsafe) var gen: Generator<Int, Void, Void>!
    say("made at line \(#line + 1)")
    gen = Generator<Int, Void, Void> { y in
        for x in gen { say("inner got \(x)") }
        try y.yield(1)
    }
    for x in gen { say("outer got \(x)") }
case "forin-recursive-throws":
    // Every level of a recursive generator is made at one line; the deepest throws, each level's
    // for-in passes the error to its body, and the outermost for-in (outside any body) stops.
    struct Deepest: Error {}
    func level(_ n: Int) -> Generator<Int, Void, Void> {
        Generator { y in
            if n == 0 { throw Deepest() }
            for x in level(n - 1) { try y.yield(x) }
        }
    }
    say("made at line \(#line - 5)")
    for x in level(3) { say("got \(x)") }
case "ignored-close":
    do {
        let gen = Generator<Int, Void, Void> { y in
            do { try y.yield(1) } catch {}
            try y.yield(2)
        }
        _ = try? gen.next()
    }
    say("still running")
case "cleanup-throws-on-release":
    // Released at a yield; its cleanup throws: reported with where it was made and what to do.
    struct CleanupFailed: Error {}
    do {
        let gen = Generator<Int, Void, Void> { y in
            defer { say("cleanup ran") }
            do { try y.yield(1) } catch is GeneratorExit { throw CleanupFailed() }
        }
        _ = try? gen.next()
    }
    say("still running")
case "adopted-outer-yielder":
    // The outer body's Yielder used inside a body adopted on its stack: the same coroutine, but
    // not that yielder's body.
    say("outer made at line \(#line + 1), inner at line \(#line + 2)")
    let gen = Generator<Int, Void, Void> { outerYielder in
        try outerYielder.yieldAll(Generator<Int, Void, Void> { _ in try outerYielder.yield(1) })
    }
    _ = try? gen.next()
case "adopted-yielder-escape":
    // An adopted body's Yielder kept and used by its adopter once that body has ended.
    nonisolated(unsafe) var kept: Yielder<Int, Void>?
    say("outer made at line \(#line + 1), inner at line \(#line + 2)")
    let gen = Generator<Int, Void, Void> { y in
        try y.yieldAll(Generator<Int, Void, Void> { inner in kept = inner })
        _ = try kept?.yield(1)
    }
    _ = try? gen.next()
case "overflow-adopted":
    // A body adopted on its delegator's stack overflows: the message names it, and its size.
    let gen = Generator<Int, Void, Int>(stackSize: 256 * 1024) { y in
        say("adopted one made at line \(#line + 1)")
        return try y.yieldAll(Generator<Int, Void, Int>(stackSize: 64 * 1024) { _ in recurse(0) })
    }
    say("\(String(describing: try? gen.next()))")
case "yielder-escape":
    nonisolated(unsafe) var kept: Yielder<Int, Void>?
    say("made at line \(#line + 1)")
    let gen = Generator<Int, Void, Void> { y in kept = y }
    _ = try? gen.next()
    _ = try? kept?.yield(1)
case "yielder-reused-address":
    // A yielder escapes generator A, A is freed, and generators of other types are made until
    // one lands at A's address; using the old yielder inside that one's body must still stop
    // with the misuse message (an address check would pass and write an Int into a String).
    nonisolated(unsafe) var kept: Yielder<Int, Void>?
    var oldAddress: UnsafeMutableRawPointer?
    do {
        say("a made at line \(#line + 1)")
        let a = Generator<Int, Void, Void> { y in kept = y }
        oldAddress = Unmanaged.passUnretained(a).toOpaque()
        _ = try? a.next()
    }
    say("b made at line \(#line + 2)")
    for attempt in 0..<100_000 {
        let b = Generator<String, Int, Double> { y in
            _ = try kept?.yield(1)
            _ = try y.yield("body of b")
            return 0
        }
        if Unmanaged.passUnretained(b).toOpaque() == oldAddress {
            say("address reused after \(attempt) attempts")
            _ = try? b.next(0)
            break
        }
    }
case "workout":
    // Every kind of switch, for valgrind (CI runs this under it): both backends, nesting,
    // delegation, a body resumed on other threads, release while suspended, the seed API.
    var total = 0
    for ucontext in [false, true] {
        RJRuntime.useUContextBackend(ucontext)
        let inner = Generator<Int, Int, Int> { y in try y.yield(1) + y.yield(2) }
        let outer = Generator<Int, Int, Int> { y in
            let sum = try y.yieldAll(inner)
            defer { total += 1000 }
            return sum + (try y.yield(3))
        }
        var step = try! outer.next(0)
        var input = 10
        while case .yielded(let v) = step {
            total += v
            // Resumed on a new thread each time: the body migrates.
            let box = UnsafeTransfer((outer, input))
            let result = UnsafeTransfer(ResultSlot<GeneratorStep<Int, Int>>())
            let hop = Thread { result.value.value = try! box.value.0.next(box.value.1) }
            hop.start()
            while !hop.isFinished { usleep(100) }
            step = result.value.value!
            input += 10
        }
        if case .returned(let r) = step { total += r }
        let suspended = Generator<Int, Void, Void> { y in defer { total += 1 }; try y.yield(1); try y.yield(2) }
        _ = try! suspended.next()
        // Adoption: a generator per level, the levels run on the outermost's stack, resumed on
        // another thread, dumped, and released while suspended in an adopted body.
        func levels(_ n: Int) -> Generator<Int, Void, Void> {
            Generator { y in
                defer { total += 1 }
                try y.yield(n)
                if n > 0 { try y.yieldAll(levels(n - 1)) }
            }
        }
        let walk = UnsafeTransfer(levels(3))
        total += try! walk.value.next().yieldedValue! + walk.value.next().yieldedValue!
        let hopped = UnsafeTransfer(ResultSlot<Int>())
        let walkHop = Thread { hopped.value.value = try! walk.value.next().yieldedValue! }
        walkHop.start()
        while !walkHop.isFinished { usleep(100) }
        total += hopped.value.value!
        if !RJRuntime.dump().coroutines.contains(where: { $0.runsOnStackOf != nil }) {
            say("workout: the dump listed no adopted generator")
        }
        let seed = RJIterator { rj_yield("a"); return "b" }
        _ = seed.next()
        // A dump reads the suspended ones' stacks (their saved contexts, their frame chains).
        let dump = RJRuntime.dump()
        if !dump.coroutines.contains(where: { $0.state == .suspended && !$0.frames.isEmpty }) {
            say("workout: the dump read no suspended stack")
        }
        _ = seed.next()
        withExtendedLifetime(walk) {}
    }
    RJRuntime.useUContextBackend(false)
    say("workout total \(total)")
case "fpu-leak":
    // A body that changes the rounding mode and yields without restoring it: debug builds stop
    // with a message; optimised builds do not check (the state belongs to the thread).
    let gen = Generator<Int, Void, Void> { y in
        rj_probe_round_upward()
        try y.yield(1)
    }
    _ = try? gen.next()
    say("rounding mode after the yield: \(rj_probe_rounding_is_upward() != 0 ? "upward (leaked)" : "to nearest")")
case "fpu-restored":
    // The same body, following the rule: it restores the mode before it yields.
    let gen = Generator<Int, Void, Void> { y in
        rj_probe_round_upward()
        rj_probe_round_to_nearest()
        try y.yield(1)
    }
    _ = try? gen.next()
    say("rounding mode after the yield: \(rj_probe_rounding_is_upward() != 0 ? "upward (leaked)" : "to nearest")")
case "seed-abandon":
    // A suspended RJIterator released: its stack goes back, what its frames held is leaked
    // (documented: rj_yield cannot throw, so the body cannot unwind).
    // Stacks or shared-stack records (the probe inherits RJ_STACK_MODE from the tests).
    func live() -> Int { RJRuntime.liveStackCount + RJRuntime.sharedGeneratorCount }
    let liveBefore = live()
    weak var weakIterator: RJIterator?
    do {
        let it = RJIterator { rj_yield(1); rj_yield(2); return nil }
        weakIterator = it
        say("first \(it.next().value as? Int ?? -1)")
        say("live while suspended +\(live() - liveBefore)")
    }
    say("live after release +\(live() - liveBefore)")
    say("iterator freed: \(weakIterator == nil)")
case "stack-allocation-fails":
    // Address space for everything the process has mapped and 256 MiB more: a 1 GiB stack
    // cannot be mapped, and the first next throws the error that says why and what to do.
    let pages = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ").first.flatMap { Int($0) } ?? 0
    var limit = rlimit()
    _ = getrlimit(Int32(RLIMIT_AS.rawValue), &limit)
    limit.rlim_cur = rlim_t(pages * 4096 + (256 << 20))
    _ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
    let gen = Generator<Int, Void, Void>(stackSize: 1 << 30) { y in try y.yield(1) }
    do {
        _ = try gen.next()
        say("allocated")
    } catch {
        say("\(error)")
        say("state \(gen.state)")
    }
case "stack-size-too-small":
    _ = Generator<Int, Void, Void>(stackSize: 1024) { _ in }
case "default-stack-size-too-small":
    RJRuntime.defaultStackSize = 1024
case "stack-size-too-large":
    _ = Generator<Int, Void, Void>(stackSize: Int.max) { _ in }
case "node-take-negative":
    _ = MutableNode(1).take(-1)
case "node-skip-negative":
    _ = MutableNode(1).skip(-2)
case "node-throttle-zero":
    _ = MutableNode(1).throttle(0)
case "node-delay-negative":
    _ = MutableNode(1).delay(on: .main, -1)
case "async-yielder-escape":
    final class Kept: @unchecked Sendable { var yielder: AsyncYielder<Int, Void>? }
    let kept = Kept()
    let gen = AsyncGenerator<Int, Void, Void> { y in kept.yielder = y }
    let done = DispatchSemaphore(value: 0)
    Task.detached { _ = try? await gen.next(); done.signal() }
    done.wait()
    _ = try? kept.yielder?.yield(1)
case "rj-yield-no-body":
    // rj_yield on a thread where no generator body runs: the value has nowhere to go.
    say("\(String(describing: rj_yield(5)))")
case "rj-yield-in-generator":
    // A migrating user's rj_yield in a typed Generator's body, where y.yield(...) belongs.
    let gen = Generator<Int, Void, Void> { _ in rj_yield(5) }
    say("\(String(describing: try? gen.next()))")
case "rj-yield-in-rj-async":
    let done = DispatchSemaphore(value: 0)
    rj_async(on: DispatchQueue(label: "probe")) { rj_yield(5) }.finally { done.signal() }
    done.wait()
case "rj-yield-in-async-generator":
    let gen = AsyncGenerator<Int, Void, Void> { _ in rj_yield(5) }
    say("\(String(describing: nextOnce(gen)))")
case "async-delegation-release":
    // An async generator suspended in yieldAll of another is released: both bodies are closed,
    // and nothing is reported (the outer's close cannot wait for the inner's: it goes on closing).
    let outer = AsyncGenerator<Int, Void, Void> { y in
        defer { say("outer closed") }
        let inner = AsyncGenerator<Int, Void, Void> { y in
            defer { say("inner closed") }
            try y.yield(1)
            try y.yield(2)
        }
        try y.yieldAll(inner)
    }
    say("first \(nextOnce(outer) ?? -1)")
    _ = consume outer
case "async-release-cleanup-yields":
    // An async generator suspended at a yield is released; its cleanup catches the close and
    // yields: the yield throws CancellationError (the release cancelled it), the body ends,
    // and nothing is reported (a Generator there reports "generator ignored close").
    do {
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer { say("cleanup ran") }
            do { try y.yield(1) } catch is GeneratorExit {
                do { try y.yield(2) } catch { say("yield in cleanup threw \(type(of: error))"); throw error }
            }
        }
        _ = nextOnce(gen)
        _ = consume gen
    }
case "async-release-cleanup-swallows":
    // Released at a yield; the body swallows every error and yields on: its first yield after
    // the close is refused (CancellationError), the next one is an ignored close, reported and
    // dropped, as a Generator's is, instead of a loop on the releasing thread.
    do {
        let gen = AsyncGenerator<Int, Void, Void> { y in
            defer { say("defer ran") }
            var swallowed = 0
            while true {
                do { try y.yield(swallowed) } catch { swallowed += 1; say("swallowed \(type(of: error))") }
            }
        }
        _ = nextOnce(gen)
        _ = consume gen
    }
case "async-cancellation-swallowed":
    // Issue 52: a careless retry loop read by a loop that owns its generator and cancels its own
    // task at its 10th value. The loop is answered within 200 ms; the body caught the
    // CancellationError of its yield and yielded again: it ignored its cancellation, reported,
    // and is closed as on release (GeneratorExit at its yield, which it lets through).
    let done = DispatchSemaphore(value: 0)
    let closed = DispatchSemaphore(value: 0)
    Task.detached {
        var cancelledAt = Date()
        do {
            var n = 0
            for try await _ in AsyncGenerator<Int, Void, Void>({ y in
                defer {
                    say("body closed")
                    closed.signal()
                }
                var i = 0
                while true {
                    do { try y.yield(i) } catch is CancellationError {}
                    i += 1
                }
            }) {
                n += 1
                if n == 10 {
                    cancelledAt = Date()
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
        } catch {
            say("reader got \(type(of: error)) within 200 ms: \(Date().timeIntervalSince(cancelledAt) < 0.2)")
        }
        done.signal()
    }
    done.wait()
    closed.wait()
    // The body's defer runs inside its coroutine: let the thread closing it finish, and the
    // reader's grace timer fire, before the process exits (an exit with a thread still on a
    // coroutine's stack made an AddressSanitizer build end with status 1, now and then).
    usleep(300_000)
case "callback-twice":
    // Each await's callback called three times: one report per await, naming its line.
    // The second await's extra call comes after the body has gone on: the probe waits for it
    // before exiting, or a slow run (a sanitizer's) ends before it is reported.
    let queue = DispatchQueue(label: "probe")
    let done = DispatchSemaphore(value: 0)
    let lateCallsMade = DispatchSemaphore(value: 0)
    rj_async(on: queue) {
        let first = rj_await { callback in
            callback(1, nil)
            callback(2, nil)
            callback(3, nil)
        }
        let second = rj_await { callback in
            DispatchQueue.global().async {
                callback(4, nil)
                callback(5, nil)
                lateCallsMade.signal()
            }
        }
        say("values \(first.value as? Int ?? -1) \(second.value as? Int ?? -1)")
    }.finally { done.signal() }
    done.wait()
    lateCallsMade.wait()
case "await-value-closure":
    // A trailing closure over a callback rj_await's task form cannot take reaches value:.
    let done = DispatchSemaphore(value: 0)
    rj_async(on: DispatchQueue(label: "probe")) {
        let r = rj_await { (done: @escaping @Sendable (Int) -> Void) in done(3) }
        say("not stopped: \(String(describing: r.value))")
    }.finally { done.signal() }
    done.wait()
case "run-main-loop-off-main":
    let task = rj_async(on: .global()) {}
    let ran = DispatchSemaphore(value: 0)
    Thread { _ = task.runMainLoop(timeout: 1); ran.signal() }.start()
    ran.wait()
case "main-queue-never-runs":
    // A command-line program that never runs the main queue: the task is reported, not silent.
    let task = rj_async { print("never") }
    Thread.sleep(forTimeInterval: 2.5)
    say("finished: \(task.isFinished)")
case "async-buffer-negative":
    _ = AsyncGenerator<Int, Void, Void>(bufferingUpTo: -1) { _ in }
case "dump-signal":
    // A stuck task and a suspended generator; the dump signal writes where they wait to stderr
    // from the library's thread while this program goes on.
    RJRuntime.installDumpSignal(SIGUSR1, stuckAfter: 0.05)
    final class Kept: @unchecked Sendable { var callbacks: [RJAsyncCallback] = [] }
    let kept = Kept()
    let queue = DispatchQueue(label: "probe")
    let task = rj_async(on: queue) { _ = rj_await { done in kept.callbacks.append(done) } }
    let parser = Generator<Int, Void, Void> { y in try probeParseLine(y) }
    _ = try? parser.next()
    queue.sync {}
    usleep(100_000)
    kill(getpid(), SIGUSR1)
    usleep(1_000_000)
    say("still running, task finished: \(task.isFinished)")
    withExtendedLifetime(parser) {}
case "dump-signal-kill":
    RJRuntime.installDumpSignal(SIGKILL)
case "wait-for-promises-off":
    _ = waitForPromises(timeout: 1)
default:
    FileHandle.standardError.write("usage: rj-probe MODE\n".data(using: .utf8)!)
    exit(2)
}
say("probe finished")
