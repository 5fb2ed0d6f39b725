import RJIterator

/// Values through chains of generators: delegation (`yieldAll`) and filters (a body that
/// iterates the generator below it), short and long. A value through a chain of `yieldAll`s
/// costs one round trip whatever the depth; through filters, one round trip per level.
@MainActor
struct ChainRows {
    static let group = "chains of generators (per value)"

    // Each chain is made once and pulled from by every sample.
    let delegation10 = Row(group, "a value through 10 delegating generators (yieldAll)", note: "per value",
                           ChainRows.pulling(ChainRows.delegating(10)))
    let delegation1000 = Row(group, "a value through 1,000 delegating generators (yieldAll)", note: "per value",
                             ChainRows.pulling(ChainRows.delegating(1000)))
    let filters10 = Row(group, "a value through 10 filtering generators", note: "per value and level",
                        ChainRows.pulling(ChainRows.filtering(10), levels: 10))
    let filters1000 = Row(group, "a value through 1,000 filtering generators", note: "per value and level",
                          ChainRows.pulling(ChainRows.filtering(1000), levels: 1000))

    // The natural recursive generator (issue 51): a generator per subtree delegating with
    // `yieldAll`, beside one generator whose helper takes the Yielder down, and a plain function.
    // One walk of a balanced tree of 100,000 nodes a sample, interleaved; the per-subtree
    // generators run adopted on the outermost's stack (docs/generators.md, "Delegation").
    static let walkTree = WalkNode.tree(0, 100_000)
    let walkPerSubtree = Row(group, "in-order walk, 100,000 nodes: a generator per subtree (yieldAll)", note: "per walk",
                             unit: "ms", sampler: { ChainRows.timedWalk { WalkNode.perSubtree(ChainRows.walkTree, .dedicated) } })
    let walkYielderDown = Row(group, "  the same walk, one generator, the Yielder passed down to a helper", note: "per walk",
                              unit: "ms", sampler: { ChainRows.timedWalk { WalkNode.yielderDown(ChainRows.walkTree, .dedicated) } })
    let walkPerSubtreeShared = Row(group, "in-order walk, 100,000 nodes, shared stacks: a generator per subtree (yieldAll)",
                                   note: "per walk", unit: "ms",
                                   sampler: { ChainRows.timedWalk { WalkNode.perSubtree(ChainRows.walkTree, .shared) } })
    let walkYielderDownShared = Row(group, "  the same walk, shared stacks, the Yielder passed down", note: "per walk", unit: "ms",
                                    sampler: { ChainRows.timedWalk { WalkNode.yielderDown(ChainRows.walkTree, .shared) } })
    let walkAllocationFloor = Row(group, "  the same walk, the Yielder passed down, making and freeing two objects a node",
                                  note: "per walk", unit: "ms",
                                  sampler: { ChainRows.timedWalk { WalkNode.yielderDownAllocating(ChainRows.walkTree, .dedicated) } })
    let walkPlain = Row(group, "  the same walk, a plain recursive function appending to an array", note: "per walk", unit: "ms",
                        sampler: {
                            let t0 = now()
                            var out: [Int] = []
                            out.reserveCapacity(100_000)
                            WalkNode.plain(ChainRows.walkTree, into: &out)
                            blackHole(out)
                            return Double(now() - t0) / 1e6
                        })

    var all: [Row] {
        [delegation10, delegation1000, filters10, filters1000, walkPerSubtree, walkYielderDown, walkAllocationFloor, walkPlain]
            + (RJRuntime.sharedStacksAvailable ? [walkPerSubtreeShared, walkYielderDownShared] : [])
    }

    /// One walk of the generator `make` gives, timed, in milliseconds.
    private static func timedWalk(_ make: () -> Generator<Int, Void, Void>) -> Double {
        let t0 = now()
        var sum = 0
        for label in make() { sum &+= label }
        blackHole(sum)
        return Double(now() - t0) / 1e6
    }

    private static func counter() -> Generator<Int, Void, Void> {
        Generator { y in
            var i = 0
            while true {
                try y.yield(i)
                i &+= 1
            }
        }
    }

    /// `depth` generators, each delegating to the next; the innermost counts.
    private static func delegating(_ depth: Int) -> Generator<Int, Void, Void> {
        Generator { y in
            if depth == 0 {
                var i = 0
                while true {
                    try y.yield(i)
                    i &+= 1
                }
            }
            try y.yieldAll(delegating(depth - 1))
        }
    }

    /// `depth` generators, each passing on the values of the one below it.
    private static func filtering(_ depth: Int) -> Generator<Int, Void, Void> {
        var g = counter()
        for _ in 0..<depth {
            let below = g
            g = Generator { y in for x in below { try y.yield(x) } }
        }
        return g
    }

    /// A row's body: pulls `n / levels` values through `chain` (so that the figure is per value
    /// and level). The chain is started here, so that calibration measures the steady state,
    /// not the making of a thousand stacks.
    private static func pulling(_ chain: Generator<Int, Void, Void>, levels: Int = 1) -> (Int) -> Void {
        _ = try! chain.nextValue()
        return { n in
            var sum = 0
            for _ in 0..<Swift.max(1, n / levels) { sum &+= try! chain.nextValue()! }
            blackHole(sum)
        }
    }
}

/// The tree the walk rows walk, and the three ways of walking it.
final class WalkNode: Sendable {
    let label: Int
    let left, right: WalkNode?
    init(_ label: Int, _ left: WalkNode?, _ right: WalkNode?) { (self.label, self.left, self.right) = (label, left, right) }

    static func tree(_ lo: Int, _ hi: Int) -> WalkNode? {
        if lo >= hi { return nil }
        let mid = (lo + hi) / 2
        return WalkNode(mid, tree(lo, mid), tree(mid + 1, hi))
    }

    static func perSubtree(_ node: WalkNode?, _ mode: StackMode) -> Generator<Int, Void, Void> {
        Generator(stackMode: mode) { y in
            guard let node else { return }
            try y.yieldAll(perSubtree(node.left, mode))
            try y.yield(node.label)
            try y.yieldAll(perSubtree(node.right, mode))
        }
    }

    static func yielderDown(_ root: WalkNode?, _ mode: StackMode) -> Generator<Int, Void, Void> {
        func walk(_ node: WalkNode?, _ y: Yielder<Int, Void>) throws {
            guard let node else { return }
            try walk(node.left, y)
            try y.yield(node.label)
            try walk(node.right, y)
        }
        return Generator(stackMode: mode) { y in try walk(root, y) }
    }

    /// The Yielder-down walk, making and freeing at each node and each empty subtree the two
    /// objects a generator per subtree allocates there (an object holding a closure, and the
    /// closure's context): the allocation floor of the per-subtree walk.
    static func yielderDownAllocating(_ root: WalkNode?, _ mode: StackMode) -> Generator<Int, Void, Void> {
        func walk(_ node: WalkNode?, _ y: Yielder<Int, Void>) throws {
            keepOne(Holder { node?.label ?? 0 })
            guard let node else { return }
            try walk(node.left, y)
            try y.yield(node.label)
            try walk(node.right, y)
        }
        return Generator(stackMode: mode) { y in try walk(root, y) }
    }

    final class Holder {
        let body: () -> Int
        init(_ body: @escaping () -> Int) { self.body = body }
    }

    nonisolated(unsafe) static var kept: Holder?

    /// Keeps `holder` until the next call, which frees it: it escapes, so it is heap-allocated.
    @inline(never)
    static func keepOne(_ holder: Holder) { kept = holder }

    static func plain(_ node: WalkNode?, into out: inout [Int]) {
        guard let node else { return }
        plain(node.left, into: &out)
        out.append(node.label)
        plain(node.right, into: &out)
    }
}

// MARK: Targets

extension ChainRows {
    func holdTargets(_ bench: Bench) {
        bench.ratio("the walk, a generator per subtree / the Yielder passed down", walkPerSubtree, over: walkYielderDown,
                    target: 2.5, "<= 2.50x (issue 51: a generator per call at a call's price)",
                    why: "two generators a node (a node's and an empty subtree's): their allocations alone are most of it")
        bench.ratio("the walk on shared stacks, a generator per subtree / the Yielder passed down", walkPerSubtreeShared,
                    over: walkYielderDownShared, target: 2.5, "<= 2.50x (issue 51)",
                    why: "two generators a node (a node's and an empty subtree's): their allocations alone are most of it")
        bench.ratio("the walk, the Yielder passed down / a plain recursive function", walkYielderDown, over: walkPlain,
                    target: nil)
        bench.ratio("the walk, a generator per subtree / its allocation floor (the Yielder down, two objects a node)",
                    walkPerSubtree, over: walkAllocationFloor, target: nil)
        bench.ratio("the allocation floor / the Yielder passed down", walkAllocationFloor, over: walkYielderDown, target: nil)
        bench.ratio("a value through 1,000 yieldAll / through 10", delegation1000, over: delegation10, target: 1.5,
                    "<= 1.50x (the cost must not grow with the depth)")
        bench.ratio("a filter level in a chain of 1,000 / of 10", filters1000, over: filters10, target: 1.5,
                    "<= 1.50x (what a long chain adds per level)",
                    why: "1,000 stacks' tops and objects outgrow the 512 KiB L2 cache: the same instructions a level (budget.txt), more misses")
    }
}
