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

    var all: [Row] { [delegation10, delegation1000, filters10, filters1000] }

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

// MARK: Targets

extension ChainRows {
    func holdTargets(_ bench: Bench) {
        bench.ratio("a value through 1,000 yieldAll / through 10", delegation1000, over: delegation10, target: 1.5,
                    "<= 1.50x (the cost must not grow with the depth)")
        bench.ratio("a filter level in a chain of 1,000 / of 10", filters1000, over: filters10, target: 1.5,
                    "<= 1.50x (what a long chain adds per level)",
                    why: "1,000 stacks' tops and objects outgrow the 512 KiB L2 cache: the same instructions a level (budget.txt), more misses")
    }
}
