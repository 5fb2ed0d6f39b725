/// Every target of the benchmark, in one table: a ratio of two rows measured in the same
/// rounds (or a row's own figure) and the bound it is held to; `nil` means for information.
/// A target is shown when its rows ran.
@MainActor
func holdTargets(_ bench: Bench, switches s: SwitchRows?, lifecycle l: LifecycleRows?, async a: AsyncRows?,
                 promises p: PromiseRows?, nodes n: NodeRows?, peers: PeerRows?, chains c: ChainRows?,
                 asyncGenerators g: AsyncGeneratorRows?, sharedStacks: SharedStackRows?, memory: MemoryRows.Rows?, asyncMemory: Row?,
                 workloads: [Workloads.Rows]) {
    // Every classic generator program at most half Python's time and no slower than Node's.
    for w in workloads {
        bench.ratio("\(w.workload.label) / Python", w.swift, over: w.python, target: 0.5)
        bench.ratio("\(w.workload.label) / Node", w.swift, over: w.node, target: 1.0)
    }
    guard let s, let l, let a, let p, let n, let peers, let c, let g else { return }
    let faster = "(information: > 1 means Generator is faster)"
    let targets: [(String, Row, Row, Double?, String?)] = [
        ("Generator.next / raw fast switch (call/ret)", s.generatorNext, s.rawFast, 1.3, nil),
        ("Generator.next / inline switch", s.generatorNext, s.rawInline, nil, nil),
        ("Generator.next / V8 generator next", s.generatorNext, peers.v8Generator, 1.0, nil),
        ("RJIterator.next / Python generator send", s.rjIteratorNext, peers.pythonGenerator, 1.0, nil),
        ("RJIterator.next / Generator.next", s.rjIteratorNext, s.generatorNext, 2.0, nil),
        ("RJIterator.next / its Any? traffic without a switch", s.rjIteratorNext, s.anyEchoNext, nil, nil),
        ("Generator.next, ucontext / raw swapcontext", s.generatorNextUContext, s.rawUContext, nil, nil),
        ("thread + semaphores / Generator.next", s.semaphores, s.generatorNext, nil, faster),
        ("create + run + release / raw fast switch", l.createRunRelease, s.rawFast, 5.0, nil),
        ("create + run + release / its allocations alone", l.createRunRelease, l.allocationsOnly, nil, nil),
        ("the allocations alone / raw fast switch", l.allocationsOnly, s.rawFast, nil, nil),
        ("rj_await, completed task / Generator.next", a.awaitCompleted, s.generatorNext, 8.0, nil),
        ("rj_await, fulfilled promise / Generator.next", a.awaitFulfilled, s.generatorNext, 8.0, nil),
        ("AsyncStream / Generator.next", a.asyncStream, s.generatorNext, nil, faster),
        ("withCheckedContinuation / Generator.next", a.checkedContinuation, s.generatorNext, nil, faster),
        ("rj_await hop / bare round trip", a.awaitHop, a.bareHop, 1.2, nil),
        ("promise + 1 then / GCD", p.promise1, p.gcd1, 1.25, nil),
        ("promise + 2 thens / GCD", p.promise2, p.gcd2, 1.5, nil),
        ("promise + 3 thens / GCD", p.promise3, p.gcd3, 1.5, nil),
        ("10,000 pending promises / GCD", p.promiseMany, p.gcdMany, 1.5, nil),
        ("GCD + 3 objects each / GCD", p.gcdManyAllocating, p.gcdMany, nil, "(information: the allocations alone)"),
        ("10,000 pending promises / GCD + 3 objects each", p.promiseMany, p.gcdManyAllocating, nil,
         "(information: what the promises add)"),
        ("node, 10 listeners / direct calls", n.nodeListeners, n.directCalls, nil, "(information: must not grow; was 2.5x-4x)"),
        ("a value through 1,000 yieldAll / through 10", c.delegation1000, c.delegation10, 1.5,
         "<= 1.50x (the cost must not grow with the depth)"),
        ("a filter level in a chain of 1,000 / of 10", c.filters1000, c.filters10, nil,
         "(information: what a long chain adds per level)"),
        ("create + next + release while suspended, shared stack / dedicated", l.createSuspendedReleaseShared,
         l.createSuspendedRelease, nil, "(information)"),
        ("create + release in waves / pooled create + run + release", l.waves, l.createSuspendedRelease, nil,
         "(information: waves run on resident stacks)"),
        ("AsyncGenerator element (no await) / AsyncStream element", g.noAwait, a.asyncStream, 0.1, nil),
        ("AsyncGenerator element (no await) / AsyncThrowingStream element", g.noAwait, g.throwingStream, 0.1, nil),
        ("AsyncGenerator element (no await) / Generator.next", g.noAwait, s.generatorNext, 3.0, nil),
        ("AsyncGenerator element, one callback hop, buffered / AsyncStream fed by it", g.withHopBuffered, g.streamWithHop, 1.0, nil),
        ("AsyncGenerator element, one callback hop, no buffer / a task awaiting the callback", g.withHop, a.continuationHop, nil,
         "(information: each element waits for its request)"),
        ("await gen.next(v) / withCheckedContinuation", g.roundTrip, a.checkedContinuation, nil, "(information)"),
    ]
    for (label, row, base, target, text) in targets {
        bench.ratio(label, row, over: base, target: target, text)
    }
    if let shared = sharedStacks {
        for size in shared.sizes {
            // The target is the 256-byte case; the others show the cost against the size.
            bench.ratio("resume, two shared taking turns / dedicated, \(size.bytes) B below the body", size.sharedTurns,
                        over: size.dedicated, target: size.bytes == 256 ? 3.0 : nil)
            bench.ratio("resume, shared alone / dedicated, \(size.bytes) B below the body", size.sharedAlone,
                        over: size.dedicated, target: nil)
        }
    }
    if let memory {
        bench.bound(memory.dedicated.perGenerator, "resident memory per suspended generator", below: 10)
        // Dedicated stacks at scale (issue 23): carved from slabs, no mapping per stack.
        bench.bound(memory.dedicated.create, "create + first next with many alive", below: 2000)
        bench.bound(memory.dedicated.release, "release of a suspended generator with many alive", below: 1000)
        bench.ratio("create with many alive / first write to a fresh page", memory.dedicated.create, over: memory.freshPage,
                    target: nil, "(information: a new stack's top page is a fresh page)")
        bench.ratio("release with many alive / giving a page back", memory.dedicated.release, over: memory.pageBack, target: nil,
                    "(information: a released stack's pages go back to the system)")
        if let shared = memory.shared {
            bench.bound(shared.perGenerator, "resident memory per suspended generator, shared stacks", below: 1024)
            bench.bound(shared.create, "create + first next with many alive, shared stacks", below: 500)
            bench.bound(shared.release, "release of a suspended generator with many alive, shared stacks", below: 500)
            if let v8 = memory.v8 {
                bench.ratio("memory per suspended generator, shared stacks / V8's", shared.perGenerator, over: v8, target: nil)
            }
            if let python = memory.python {
                bench.ratio("memory per suspended generator, shared stacks / Python's", shared.perGenerator, over: python, target: nil)
            }
        }
        if let task = memory.swiftTask, let body = memory.rjAsyncShared {
            bench.ratio("memory per suspended rj_async body, shared stacks / per Swift Task", body, over: task, target: 1.0)
        }
        if let asyncMemory {
            bench.ratio("memory per suspended AsyncGenerator / per Generator", asyncMemory, over: memory.dedicated.perGenerator,
                        target: 1.2)
        }
    }
}
