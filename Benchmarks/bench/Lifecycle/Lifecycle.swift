import RJIterator

/// A generator's life: made, run, released, with and without the stack pool.
@MainActor
struct LifecycleRows {
    static let group = "lifecycle (create, run, release)"

    let createRunRelease = Row(LifecycleRows.group, "create + first next + release (pooled)", note: "body returns at once") { n in
        for i in 0..<n {
            let g = Generator<Int, Void, Int> { _ in i }
            blackHole(try! g.next())
        }
    }

    /// What `createRunRelease` allocates, without a coroutine: an object holding a closure
    /// that captures the loop's index (a generator and its body), made, called once and freed.
    let allocationsOnly = Row(LifecycleRows.group, "the same two allocations, no coroutine", note: "an object and a closure context") { n in
        for i in 0..<n {
            let object = AllocationsOnly { i }
            blackHole(object.body())
            allocationsSink = object
        }
        allocationsSink = nil
    }

    let createSuspendedRelease = Row(LifecycleRows.group, "create + next + release while suspended",
                                     note: "release closes the body: one more switch") { n in
        for i in 0..<n {
            let g = Generator<Int, Void, Void> { y in try y.yield(i) }
            blackHole(try! g.next())
        }
    }

    let createRunReleaseShared = Row(LifecycleRows.group, "create + first next + release, shared stack",
                                     note: "body returns at once") { n in
        for i in 0..<n {
            let g = Generator<Int, Void, Int>(stackMode: .shared) { _ in i }
            blackHole(try! g.next())
        }
    }

    let createSuspendedReleaseShared = Row(LifecycleRows.group, "create + next + release while suspended, shared stack",
                                           note: "release closes the body: one more switch") { n in
        for i in 0..<n {
            let g = Generator<Int, Void, Void>(stackMode: .shared) { y in try y.yield(i) }
            blackHole(try! g.next())
        }
    }

    /// A backtracking program's pattern: 40 generators made and suspended at once, then all
    /// released, over and over. The pool hands the same resident stacks back every wave.
    let waves = Row(LifecycleRows.group, "create + next + release in waves of 40", note: "per generator, suspended ones") { n in
        var alive: [Generator<Int, Void, Void>] = []
        alive.reserveCapacity(40)
        for wave in 0..<Swift.max(1, n / 40) {
            for i in 0..<40 {
                let g = Generator<Int, Void, Void> { y in try y.yield(wave &+ i) }
                blackHole(try! g.next())
                alive.append(g)
            }
            alive.removeAll(keepingCapacity: true)
        }
    }

    let createNoPool = Row(LifecycleRows.group, "create + first next + release (no pool)", note: "mmap + guard + munmap each time") { n in
        let savedLimit = RJRuntime.stackPoolLimit
        RJRuntime.stackPoolLimit = 0
        defer { RJRuntime.stackPoolLimit = savedLimit }
        for i in 0..<n {
            let g = Generator<Int, Void, Int> { _ in i }
            blackHole(try! g.next())
        }
    }
}

/// Where each object goes, so that the optimiser cannot keep it on the stack: the next store
/// frees the previous one.
nonisolated(unsafe) var allocationsSink: AllocationsOnly?

final class AllocationsOnly {
    let body: () -> Int
    init(_ body: @escaping () -> Int) { self.body = body }
}

// MARK: Targets

extension LifecycleRows {
    func holdTargets(_ bench: Bench, switches s: SwitchRows, peers: PeerRows) {
        bench.ratio("create + run + release / raw fast switch", createRunRelease, over: s.rawFast, target: 5.0,
                    why: "a generator's two Swift allocations (an object, its closure's context) alone cost about 2x this switch")
        bench.ratio("create + run + release / its allocations alone", createRunRelease, over: allocationsOnly, target: 2.0,
                    why: "a stack from the pool and the generator's set-up add most of the allocations' own count again (Benchmarks/instructions/budget.txt)")
        bench.ratio("create + run + release / V8's generator created, run, dropped", createRunRelease, over: peers.v8Create,
                    target: 2.0, why: "V8 makes one small object in its own heap; a Swift generator makes two with malloc, and takes a stack")
        bench.ratio("create + run + release / Python's generator created, run, dropped", createRunRelease,
                    over: peers.pythonCreate, target: nil)
        bench.ratio("the allocations alone / raw fast switch", allocationsOnly, over: s.rawFast, target: nil)
        bench.ratio("create + next + release while suspended, shared stack / dedicated", createSuspendedReleaseShared,
                    over: createSuspendedRelease, target: nil, "(information)")
        bench.ratio("create + release in waves / pooled create + run + release", waves, over: createSuspendedRelease,
                    target: nil, "(information: waves run on resident stacks)")
    }
}
