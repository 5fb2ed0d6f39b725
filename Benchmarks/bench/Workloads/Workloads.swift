import Foundation

/// Classic generator programs, each written three times: in Swift against the public API
/// (a file of this folder), in Python and in JavaScript (Benchmarks/peers/workloads/). Each
/// round runs the three side by side; their outputs must be identical, and each program
/// times itself (interpreter start-up excluded).
struct Workload {
    /// The peers' script name (`queens` for queens.py and queens.js).
    let peer: String
    let label: String
    let size: Int
    let quickSize: Int
    /// Runs the program once; its output lines and the nanoseconds it took (some programs
    /// leave their input's making out of the time, as their peers do).
    let run: (Int) -> (lines: [String], nanoseconds: UInt64)

    init(_ peer: String, _ label: String, size: Int, quick: Int, _ run: @escaping (Int) -> [String]) {
        self.init(peer, label, size: size, quick: quick, timed: { n in
            let t0 = now()
            let lines = run(n)
            return (lines, now() - t0)
        })
    }

    init(_ peer: String, _ label: String, size: Int, quick: Int, timed run: @escaping (Int) -> (lines: [String], nanoseconds: UInt64)) {
        (self.peer, self.label, self.size, self.quickSize, self.run) = (peer, label, size, quick, run)
    }
}

@MainActor
enum Workloads {
    static let group = "workloads: classic generator programs, one run each (Python and Node in child processes)"

    static let all: [Workload] = [
        Workload("queens", "N-Queens through conjoin (yieldAll)", size: 11, quick: 8, QueensWorkload.run),
        Workload("knights", "knight's tours through conjoin", size: 5000, quick: 200, KnightsWorkload.run),
        Workload("samefringe", "same fringe, a generator per subtree", size: 20000, quick: 2000, SameFringeWorkload.run),
        Workload("hamming", "Hamming numbers through a tee", size: 60, quick: 3, HammingWorkload.run),
        Workload("inorder", "in-order walk, a generator per subtree", size: 16, quick: 10, InorderWorkload.run),
        Workload("sieve", "prime sieve, a chain of filter generators", size: 2000, quick: 300, SieveWorkload.run),
        Workload("average", "send pipeline (Generator: start, send)", size: 1_000_000, quick: 50_000, AveragerWorkload.run),
        Workload("average", "send pipeline (seed API: RJIterator, rj_yield)", size: 1_000_000, quick: 50_000, SeedAveragerWorkload.run),
        Workload("parser", "tokenizer generator + recursive-descent parser", size: 5000, quick: 300, timed: ParserWorkload.run),
        Workload("pipeline", "itertools-style pipeline of 7 generators", size: 1_000_000_000_000, quick: 1_000_000_000,
                 PipelineWorkload.run),
    ]

    /// The rows of one workload: Swift and each peer that could run.
    struct Rows {
        let workload: Workload
        let swift: Row
        let python: Row
        let node: Row
    }

    /// Runs every wanted workload in interleaved rounds; returns their rows, and reports any
    /// peer whose output differs from the Swift program's (a failure of the benchmark).
    static func measure(_ bench: Bench) -> [Rows] {
        var measured: [Rows] = []
        for workload in all {
            let name = "workload \(workload.peer): \(workload.label)"
            guard bench.wanted(name) else { continue }
            let size = bench.options.quick ? workload.quickSize : workload.size
            // Warm-up, and the output every run must print.
            let expected = workload.run(size).lines
            let swift = Row(group, name, note: "size \(size)", unit: "ms", sampler: {
                let (lines, ns) = workload.run(size)
                if lines != expected { bench.fail("\(name): the Swift program's output changed between runs") }
                return Double(ns) / 1e6
            })
            let python = peerRow(bench, name, "python3", "\(workload.peer).py", size, expected)
            let node = peerRow(bench, name, "node", "\(workload.peer).js", size, expected)
            bench.measure([swift, python, node], rounds: bench.options.quick ? 2 : 5)
            measured.append(Rows(workload: workload, swift: swift, python: python, node: node))
        }
        return measured
    }

    /// A peer's row: each sample runs the script once (it warms up, then times one run) and
    /// checks its output against the Swift program's.
    private static func peerRow(_ bench: Bench, _ name: String, _ interpreter: String, _ script: String, _ size: Int,
                                _ expected: [String]) -> Row {
        let language = interpreter == "node" ? "Node" : "Python"
        if bench.options.noPeers { return Row(group, "  \(language)", sampler: nil) }
        guard onPath(interpreter) else {
            progress("\(name), \(language): skipped, \(interpreter) is not on the PATH")
            return Row(group, "  \(language)", sampler: nil)
        }
        return Row(group, "  \(language) (\(script))", unit: "ms", sampler: {
            guard let output = runPeer(interpreter, "workloads/\(script)", [String(size)]) else {
                bench.fail("\(name): \(interpreter) \(script) \(size) failed")
                return nil
            }
            var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            while lines.last == "" { lines.removeLast() }
            guard let last = lines.popLast(), last.hasPrefix("time_ns "), let ns = Double(last.dropFirst(8)) else {
                bench.fail("\(name): \(script) printed no time_ns line")
                return nil
            }
            if lines != expected {
                bench.fail("\(name): \(script) printed\n    \(lines.joined(separator: "\n    "))\n  where Swift printed\n    "
                           + expected.joined(separator: "\n    "))
                return nil
            }
            return ns / 1e6
        })
    }
}

// MARK: Targets

extension Workloads {
    /// Why the programs that miss their targets miss them (docs/performance.md, "Where the time goes").
    static let whyMissed: [String: String] = [
        "N-Queens through conjoin (yieldAll)": "a generator read with for-in per step of the search: a stack's life each (its delegates are adopted)",
        "knight's tours through conjoin": "a generator per step of the search, like N-Queens: bound by a generator's life",
        "same fringe, a generator per subtree": "a generator per subtree, like the in-order walk: bound by its allocations",
        "in-order walk, a generator per subtree": "a generator per node: bound by its allocations",
        "prime sieve, a chain of filter generators": "a chain of 2,000 filters: its stacks outgrow the caches (the filter chain target)",
        "send pipeline (seed API: RJIterator, rj_yield)": "the seed API's Any? values: three casts back per value (as! Double) are about half its instructions",
    ]

    /// The programs held to targets of their own (Python's, Node's): the seed API's values are
    /// untyped, and each is cast back where it is used (issue 53).
    static let ownTargets: [String: (python: Double, node: Double)] = [
        "send pipeline (seed API: RJIterator, rj_yield)": (0.6, 2.0),
    ]

    /// Every classic generator program at most half Python's time and no slower than Node's.
    @MainActor
    static func holdTargets(_ bench: Bench, _ workloads: [Rows]) {
        for w in workloads {
            let why = whyMissed[w.workload.label]
            let targets = ownTargets[w.workload.label] ?? (0.5, 1.0)
            bench.ratio("\(w.workload.label) / Python", w.swift, over: w.python, target: targets.python, why: why)
            bench.ratio("\(w.workload.label) / Node", w.swift, over: w.node, target: targets.node, why: why)
        }
    }
}
