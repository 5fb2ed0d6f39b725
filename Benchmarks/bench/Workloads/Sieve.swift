import RJIterator

// The prime sieve of chained filter generators (CPython's Lib/test/test_generators.py), as
// Benchmarks/peers/workloads/sieve.py and sieve.js: every prime adds a filter of its
// multiples in front of the numbers, and a sieve level that delegates to the next. The first
// SIZE primes are taken.
enum SieveWorkload {
    static func ints(from start: Int) -> Generator<Int, Void, Void> {
        Generator { y in
            var i = start
            while true {
                try y.yield(i)
                i += 1
            }
        }
    }

    static func excludingMultiples(of n: Int, _ ints: Generator<Int, Void, Void>) -> Generator<Int, Void, Void> {
        Generator { y in
            for i in ints where i % n != 0 { try y.yield(i) }
        }
    }

    static func sieve(_ ints: Generator<Int, Void, Void>) -> Generator<Int, Void, Void> {
        Generator { y in
            let prime = try ints.nextValue()!
            try y.yield(prime)
            try y.yieldAll(sieve(excludingMultiples(of: prime, ints)))
        }
    }

    static func run(_ size: Int) -> [String] {
        let primes = sieve(ints(from: 2))
        var (total, last) = (0, 0)
        var first: [Int] = []
        for k in 0..<size {
            last = try! primes.nextValue()!
            total += last
            if k < 10 { first.append(last) }
        }
        return ["primes: " + first.map(String.init).joined(separator: " "), "prime \(size): \(last)", "sum \(total)"]
    }
}
