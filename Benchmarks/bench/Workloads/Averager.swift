import RJIterator

// A pipeline of coroutines driven with values sent in, as Benchmarks/peers/workloads/
// average.py and average.js: every value goes into a scaler, which sends it on to a running
// averager and passes the averager's answer back. Written twice: with `Generator` (`start`,
// `send`) and with the seed API (`RJIterator`, `rj_yield`). SIZE values are sent.
enum AveragerWorkload {
    static func averager(stackMode: StackMode? = nil) -> Generator<Double?, Double, Void> {
        Generator(stackMode: stackMode) { y in
            var total = 0.0
            var count = 0
            var average: Double? = nil
            while true {
                let term = try y.yield(average)
                total += term
                count += 1
                average = total / Double(count)
            }
        }
    }

    static func scaler(_ factor: Double, _ target: Generator<Double?, Double, Void>,
                       stackMode: StackMode? = nil) -> Generator<Double?, Double, Void> {
        Generator(stackMode: stackMode) { y in
            var answer: Double? = nil
            while true {
                let x = try y.yield(answer)
                answer = try target.send(x * factor)
            }
        }
    }

    static func run(_ size: Int) -> [String] {
        let average = averager()
        try! average.start()
        let pipe = scaler(0.5, average)
        try! pipe.start()
        var checksum = 0
        var answer = 0.0
        for i in 0..<size {
            answer = try! pipe.send(Double(i % 1000))!
            if i % 1000 == 999 { checksum += Int(answer * 1000) }
        }
        return report(size, answer, checksum)
    }

    static func report(_ size: Int, _ answer: Double, _ checksum: Int) -> [String] {
        ["average of \(size) values: \(Int(answer * 1000))/1000", "checksum \(checksum)"]
    }
}

/// The same pipeline with the seed API: untyped values, `next(x)` and `rj_yield`.
enum SeedAveragerWorkload {
    static func averager() -> RJIterator {
        RJIterator {
            var total = 0.0
            var count = 0
            var average: Any? = nil
            while true {
                let term = rj_yield(average) as! Double
                total += term
                count += 1
                average = total / Double(count)
            }
        }
    }

    static func scaler(_ factor: Double, _ target: RJIterator) -> RJIterator {
        RJIterator {
            var answer: Any? = nil
            while true {
                let x = rj_yield(answer) as! Double
                answer = target.next(x * factor).value
            }
        }
    }

    static func run(_ size: Int) -> [String] {
        let average = averager()
        average.next()
        let pipe = scaler(0.5, average)
        pipe.next()
        var checksum = 0
        var answer = 0.0
        for i in 0..<size {
            answer = pipe.next(Double(i % 1000)).value as! Double
            if i % 1000 == 999 { checksum += Int(answer * 1000) }
        }
        return AveragerWorkload.report(size, answer, checksum)
    }
}
