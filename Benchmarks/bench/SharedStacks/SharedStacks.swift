import CRJBenchFloor
import CRJContext
import RJIterator

/// What a resume costs in each stack mode, against how much stack the suspended body uses: a
/// generator that suspends with `bytes` of its own frames below its body (a C frame of that
/// size), resumed in a loop.
/// - dedicated: its own stack; nothing moves.
/// - shared, alone: the only generator of its run stack, its frames stay there.
/// - shared, two taking turns: two generators of one run stack resumed alternately: every
///   resume copies the other's frames out and this one's in.
@MainActor
struct SharedStackRows {
    static let group = "shared stacks: a resume against the bytes a suspended body uses"
    static let sizes = [64, 256, 1024, 4096, 16384]

    struct Size {
        let bytes: Int
        let dedicated: Row
        let sharedAlone: Row
        let sharedTurns: Row
    }

    let sizes: [Size] = SharedStackRows.sizes.map { bytes in
        Size(bytes: bytes,
             dedicated: Row(group, "resume, dedicated stack, \(bytes) B below the body", note: "round trip",
                            SharedStackRows.resuming(bytes, mode: .dedicated, generators: 1)),
             sharedAlone: Row(group, "resume, shared stack alone, \(bytes) B below the body", note: "round trip, nothing copied",
                              SharedStackRows.resuming(bytes, mode: .shared, generators: 1)),
             sharedTurns: Row(group, "resume, two shared taking turns on one run stack, \(bytes) B below the body",
                              note: "round trip, frames copied out and in", SharedStackRows.resuming(bytes, mode: .shared, generators: 2)))
    }

    /// The workload `average`'s send pipeline (a send into a scaler whose body sends on to an
    /// averager) in each mode: with shared stacks each generator is on a run stack of its own.
    let pipelineDedicated = Row(group, "send pipeline, dedicated stacks", note: "a value through scaler and averager",
                                SharedStackRows.sending(.dedicated))
    let pipelineShared = Row(group, "send pipeline, shared stacks", note: "the same, two run stacks: nothing copied",
                             SharedStackRows.sending(.shared))

    var all: [Row] { sizes.flatMap { [$0.dedicated, $0.sharedAlone, $0.sharedTurns] } }

    /// Measures every row with one run stack (so that two shared generators always share it),
    /// then gives the process its run stacks back. Skipped where shared stacks are not built.
    func measure(_ bench: Bench) {
        guard RJRuntime.sharedStacksAvailable, all.contains(where: { bench.wanted($0.name) }) else { return }
        let before = RJRuntime.sharedRunStackCount
        guard rj_set_shared_run_stack_count(1) == 0 else {
            progress("shared-stack rows skipped: \(String(cString: rj_last_error()))")
            return
        }
        bench.measure(all)
        _ = rj_set_shared_run_stack_count(size_t(before))
        if bench.wanted(pipelineShared.name) || bench.wanted(pipelineDedicated.name) {
            bench.measure([pipelineDedicated, pipelineShared])
        }
    }

    nonisolated private static func sending(_ mode: StackMode) -> (Int) -> Void {
        { n in
            let average = AveragerWorkload.averager(stackMode: mode)
            try! average.start()
            let pipe = AveragerWorkload.scaler(0.5, average, stackMode: mode)
            try! pipe.start()
            var total = 0.0
            for i in 0..<n { total += try! pipe.send(Double(i % 1000))! }
            blackHole(total)
        }
    }

    /// A body that suspends with `bytes` of C frame below it, forever.
    private final class Body {
        let yielder: Yielder<Int, Void>
        init(_ yielder: Yielder<Int, Void>) { self.yielder = yielder }
        func run() {
            do { while true { try yielder.yield(1) } } catch {}
        }
    }

    nonisolated private static func resuming(_ bytes: Int, mode: StackMode, generators: Int) -> (Int) -> Void {
        { n in
            let gens = (0..<generators).map { _ in
                Generator<Int, Void, Void>(stackMode: mode) { y in
                    let body = Body(y)
                    rj_bench_on_stack(bytes, { Unmanaged<Body>.fromOpaque($0!).takeUnretainedValue().run() },
                                      Unmanaged.passUnretained(body).toOpaque())
                    withExtendedLifetime(body) {}
                }
            }
            var sum = 0
            for i in 0..<n { sum &+= (try? gens[i % generators].next().yieldedValue) ?? 0 }
            blackHole(sum)
        }
    }
}

// MARK: Targets

extension SharedStackRows {
    func holdTargets(_ bench: Bench) {
        for size in sizes {
            // The target is the 256-byte case; the others show the cost against the size.
            bench.ratio("resume, two shared taking turns / dedicated, \(size.bytes) B below the body", size.sharedTurns,
                        over: size.dedicated, target: size.bytes == 256 ? 3.0 : nil)
            bench.ratio("resume, shared alone / dedicated, \(size.bytes) B below the body", size.sharedAlone,
                        over: size.dedicated, target: size.bytes == 256 ? 1.2 : nil,
                        why: "the run stack is taken and given back around each resume (a compare-and-swap each)")
        }
        bench.ratio("send pipeline, shared stacks / dedicated", pipelineShared, over: pipelineDedicated, target: 1.3,
                    why: "each send takes and gives back a run stack (a compare-and-swap each)")
    }
}
