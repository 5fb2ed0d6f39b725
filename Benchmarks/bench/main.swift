// swift run -c release bench [--quick] [--json] [--filter NAME] [--scale N]
//
// Every figure in README.md and docs/performance.md comes from this program. Each row is
// nanoseconds per operation: the median of repeated samples (15, or 5 with --quick) after a
// warm-up, with min and max. Ratios are computed between rows of the same run.
//
// The rows live in one folder per area (Switch/, Lifecycle/, Chains/, SharedStacks/, Memory/,
// Promises/, Async/, AsyncGenerators/, Nodes/, Peers/, Workloads/), each with the targets its
// rows are held to (`holdTargets`, at the end of its file); Harness/ measures and prints. This
// file says which rows are measured together, in interleaved sets, and prints the result.
import CRJContext
import Foundation
import RJIterator

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let bench = Bench(options: options)
let optimized = builtWithOptimization()

// Run one generator first, so the header reports what the first stack found out.
_ = try? Generator<Int, Void, Void> { y in try y.yield(0) }.next()
var header = ["RJIterator benchmark"]
header.append("backend: \(RJRuntime.contextBackend)   guard: \(RJRuntime.guardUsesMadvise ? "MADV_GUARD_INSTALL" : "mprotect")   exclusivity: \(rj_exclusivity_fast_path() != 0 ? "inline check" : "runtime calls")   default stack: \(RJRuntime.defaultStackSize / 1024) KiB")
header.append("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
if !optimized {
    header.append("WARNING: built without optimisation; run `swift run -c release bench` for real figures")
    progress("WARNING: debug build, figures are not representative")
}

/// Prints the table (or the JSON) and exits: with status 1 if anything failed.
@MainActor func finish() -> Never {
    if options.json {
        printJSON(bench.rows, bench.ratios, meta: [
            ("backend", .string(RJRuntime.contextBackend)), ("optimized", .bool(optimized)), ("quick", .bool(options.quick)),
            ("scale", .number(Double(options.scale ?? (options.quick ? 20_000 : 100_000)))), ("machine", .string(header[2])),
        ])
    } else {
        checkSummaryRows(bench)
        printTable(bench.rows, bench.ratios, header: header, summary: plainSummary(bench))
    }
    if !bench.failures.isEmpty {
        progress("\(bench.failures.count) failure(s):\n  " + bench.failures.joined(separator: "\n  "))
        exit(1)
    }
    exit(0)
}

let switches = SwitchRows(bench: bench)
let lifecycle = LifecycleRows()
let asyncRows = AsyncRows()
let peers = PeerRows(bench: bench)
let promises = PromiseRows()
let nodes = NodeRows()
let chains = ChainRows()
let asyncGenerators = AsyncGeneratorRows()

if options.workloadsOnly {
    let workloads = Workloads.measure(bench)
    bench.checkSomethingRan()
    Workloads.holdTargets(bench, workloads)
    finish()
}

// One interleaved set: every target that compares two of these rows takes both from the same
// rounds. Each row still prints under its own area's heading.
bench.measure([switches.rawFast, switches.rawInline, switches.rawInlineFPU, switches.rawUContext,
               peers.v8Generator, peers.pythonGenerator, switches.generatorNext, switches.generatorNextUContext,
               switches.rjIteratorNext, switches.rjIteratorNextTyped, switches.anyEchoNext, lifecycle.createRunRelease,
               lifecycle.allocationsOnly,
               peers.v8Create, peers.pythonCreate,
               asyncRows.awaitCompleted, asyncRows.awaitFulfilled, asyncRows.generatorNextInBody, asyncRows.asyncStream, asyncRows.checkedContinuation,
               asyncGenerators.noAwait, asyncGenerators.inActor, asyncGenerators.relayOne, asyncGenerators.relayOneDelegating,
               asyncGenerators.relayTwo, asyncGenerators.throwingStream, asyncGenerators.roundTrip, switches.semaphores])
switches.finish()
bench.measure([lifecycle.createSuspendedRelease, lifecycle.createNoPool, lifecycle.waves]
              + (RJRuntime.sharedStacksAvailable ? [lifecycle.createRunReleaseShared, lifecycle.createSuspendedReleaseShared] : []))
bench.measure(chains.all)
let sharedStacks = SharedStackRows()
sharedStacks.measure(bench)
let memoryScale = options.scale ?? (options.quick ? 20_000 : 100_000)
let memory = MemoryRows.measure(bench, count: memoryScale)
let asyncMemory = AsyncGeneratorRows.measureMemory(bench, count: memoryScale)
promises.measure(bench)
bench.measure(asyncRows.acrossQueues)
bench.measure([asyncGenerators.withHop, asyncGenerators.withHopBuffered, asyncGenerators.streamWithHop, asyncRows.continuationHop])
bench.measure([asyncGenerators.streamInBody, asyncGenerators.streamDirect])
bench.measure(nodes.all)
// Last: the programs churn through far more memory and threads than any row, and the rows
// measured after them ran in a slower state of the process.
let workloads = Workloads.measure(bench)
bench.checkSomethingRan()

// Each area's targets: ratios of rows measured in the same rounds, shown when their rows ran.
Workloads.holdTargets(bench, workloads)
switches.holdTargets(bench, peers: peers)
lifecycle.holdTargets(bench, switches: switches, peers: peers)
asyncRows.holdTargets(bench, switches: switches)
promises.holdTargets(bench)
nodes.holdTargets(bench)
chains.holdTargets(bench)
asyncGenerators.holdTargets(bench, switches: switches, async: asyncRows)
sharedStacks.holdTargets(bench)
memory?.holdTargets(bench, asyncMemory: asyncMemory)
finish()
