import RJIterator

// An itertools-style pipeline, every stage a generator of its own: count -> map -> filter ->
// takeWhile -> chunked -> map -> every 3rd -> sum, as Benchmarks/peers/workloads/pipeline.py
// and pipeline.js. SIZE bounds the squares.
enum PipelineWorkload {
    static func count(from start: Int) -> Generator<Int, Void, Void> {
        Generator { y in
            var n = start
            while true {
                try y.yield(n)
                n += 1
            }
        }
    }

    static func map<A, B>(_ transform: @escaping (A) -> B, _ source: Generator<A, Void, Void>) -> Generator<B, Void, Void> {
        Generator { y in
            for x in source { try y.yield(transform(x)) }
        }
    }

    static func filter<A>(_ isIncluded: @escaping (A) -> Bool, _ source: Generator<A, Void, Void>) -> Generator<A, Void, Void> {
        Generator { y in
            for x in source where isIncluded(x) { try y.yield(x) }
        }
    }

    static func takeWhile<A>(_ predicate: @escaping (A) -> Bool, _ source: Generator<A, Void, Void>) -> Generator<A, Void, Void> {
        Generator { y in
            for x in source {
                if !predicate(x) { return }
                try y.yield(x)
            }
        }
    }

    static func chunked<A>(_ size: Int, _ source: Generator<A, Void, Void>) -> Generator<[A], Void, Void> {
        Generator { y in
            var chunk: [A] = []
            for x in source {
                chunk.append(x)
                if chunk.count == size {
                    try y.yield(chunk)
                    chunk = []
                }
            }
            if !chunk.isEmpty { try y.yield(chunk) }
        }
    }

    static func every<A>(_ step: Int, _ source: Generator<A, Void, Void>) -> Generator<A, Void, Void> {
        Generator { y in
            var k = 0
            for x in source {
                if k % step == 0 { try y.yield(x) }
                k += 1
            }
        }
    }

    static func run(_ size: Int) -> [String] {
        let squares = map({ $0 * $0 }, count(from: 1))
        let odd = filter({ $0 % 2 == 1 }, squares)
        let bounded = takeWhile({ $0 < size }, odd)
        let sums = map({ $0.reduce(0, +) }, chunked(7, bounded))
        var (total, n) = (0, 0)
        for s in every(3, sums) {
            total = (total + s) % 1_000_000_007
            n += 1
        }
        return ["pipeline below \(size): \(n) chunk sums taken", "total mod 1e9+7: \(total)"]
    }
}
