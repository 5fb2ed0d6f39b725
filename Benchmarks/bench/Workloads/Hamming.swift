import RJIterator

// Hamming numbers (2^i 3^j 5^k in increasing order) by generators that run after their own
// tail through a tee (CPython's Lib/test/test_generators.py, m235 with itertools.tee), as
// Benchmarks/peers/workloads/hamming.py and hamming.js. The first 5,000 are taken SIZE times.
enum HammingWorkload {
    static func times(_ n: Int, _ source: TeeReader<Int>) -> Generator<Int, Void, Void> {
        Generator { y in
            for i in source { try y.yield(n * i) }
        }
    }

    static func merge(_ g: Generator<Int, Void, Void>, _ h: Generator<Int, Void, Void>) -> Generator<Int, Void, Void> {
        Generator { y in
            var ng = try g.nextValue()!
            var nh = try h.nextValue()!
            while true {
                if ng < nh {
                    try y.yield(ng)
                    ng = try g.nextValue()!
                } else if ng > nh {
                    try y.yield(nh)
                    nh = try h.nextValue()!
                } else {
                    try y.yield(ng)
                    ng = try g.nextValue()!
                    nh = try h.nextValue()!
                }
            }
        }
    }

    /// The sequence, and the generator behind it: its body reads its own tee, so the two
    /// hold each other through its suspended stack. Close the generator when done.
    static func m235() -> (numbers: TeeReader<Int>, source: Generator<Int, Void, Void>) {
        var readers: [TeeReader<Int>] = []
        let source = Generator<Int, Void, Void> { y in
            try y.yield(1)
            try y.yieldAll(merge(times(2, readers[0]), merge(times(3, readers[1]), times(5, readers[2]))))
        }
        readers = source.tee(4)
        return (readers[3], source)
    }

    static func run(_ size: Int) -> [String] {
        let count = 5000
        var total = 0
        var last = 0
        var first: [Int] = []
        for _ in 0..<size {
            let (numbers, source) = m235()
            defer { try? source.close() }
            for k in 0..<count {
                last = try! numbers.nextValue()!
                if k < 15 && first.count < 15 { first.append(last) }
                total = (total + last) % 1_000_000_007
            }
        }
        return ["hamming: " + first.map(String.init).joined(separator: " "),
                "number \(count): \(last)",
                "sum mod 1e9+7: \(total)"]
    }
}
