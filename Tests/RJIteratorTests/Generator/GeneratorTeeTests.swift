import XCTest

@testable import RJIterator

// tee: one generator, several readers (itertools.tee, CPython's LazyList).
final class GeneratorTeeTests: XCTestCase {
    private func counting(to n: Int, log: Log? = nil) -> Generator<Int, Void, Void> {
        Generator { y in
            for i in 1...n {
                log?.add("made \(i)")
                try y.yield(i)
            }
        }
    }

    func testEveryReaderSeesEveryValueInOrderAtItsOwnPace() throws {
        let log = Log()
        let readers = counting(to: 200, log: log).tee(3)
        XCTAssertEqual(try readers[0].nextValue(), 1)
        XCTAssertEqual(try readers[0].nextValue(), 2)
        XCTAssertEqual(log.all, ["made 1", "made 2"], "the source runs only as far as the furthest reader")
        XCTAssertEqual(Array(readers[1]), Array(1...200))
        XCTAssertEqual(log.all.count, 200, "each value made once")
        XCTAssertEqual(try readers[0].nextValue(), 3)
        XCTAssertEqual(Array(readers[2]), Array(1...200))
        XCTAssertEqual(Array(readers[0]), Array(4...200))
        XCTAssertNil(try readers[0].nextValue(), "and nil at the end, every time")
        XCTAssertNil(try readers[1].nextValue())
    }

    func testValuesAreFreedOnceTheSlowestReaderHasReadThem() throws {
        let source = Generator<Tracked, Void, Void> { y in
            for _ in 0..<1000 { try y.yield(Tracked()) }
        }
        let readers = source.tee(2)
        let before = Tracked.count
        for _ in 0..<1000 {
            _ = try readers[0].nextValue()
            _ = try readers[1].nextValue()
        }
        XCTAssertLessThanOrEqual(Tracked.count - before, 64, "at most a block of values is kept")
        _ = readers
    }

    func testAnErrorOfTheSourceReachesTheReaderThatPulledAndEveryReaderAfterIt() throws {
        let readers = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 6)
        }.tee(2)
        XCTAssertEqual(try readers[0].nextValue(), 1)
        XCTAssertThrowsError(try readers[0].nextValue()) { XCTAssertEqual($0 as? TestError, TestError(code: 6)) }
        XCTAssertEqual(try readers[1].nextValue(), 1)
        XCTAssertThrowsError(try readers[1].nextValue()) { XCTAssertEqual($0 as? TestError, TestError(code: 6)) }
    }

    // The Hamming numbers run after their own tail: the body reads its own readers (CPython's
    // m235 with tee). The body's suspended stack holds the readers, which hold the generator:
    // a reference cycle ARC cannot free. Closing the generator unwinds the body and frees it
    // all (docs/generators.md, "Reference cycles through suspended stacks").
    func testHammingThroughItsOwnTeeAndCloseFreesTheCycle() throws {
        let liveBefore = liveBodies
        weak var weakSource: Generator<Int, Void, Void>?
        do {
            func times(_ n: Int, _ reader: TeeReader<Int>) -> Generator<Int, Void, Void> {
                Generator { y in for x in reader { try y.yield(n * x) } }
            }
            var readers: [TeeReader<Int>] = []
            let source = Generator<Int, Void, Void> { y in
                try y.yield(1)
                try y.yieldAll(HammingMerge.merge(times(2, readers[0]), HammingMerge.merge(times(3, readers[1]), times(5, readers[2]))))
            }
            readers = source.tee(4)
            weakSource = source
            var first: [Int] = []
            for _ in 0..<15 { first.append(try readers[3].nextValue()!) }
            XCTAssertEqual(first, [1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 18, 20, 24])
            try source.close()
        }
        XCTAssertNil(weakSource, "closed, the body let go of its readers, and nothing holds the generator")
        XCTAssertEqual(liveBodies, liveBefore)
    }

    // Without close, the same cycle keeps everything alive: what the docs warn about.
    func testWithoutCloseTheCycleKeepsTheGeneratorAlive() throws {
        weak var weakSource: Generator<Int, Void, Void>?
        do {
            // The natural numbers, each the one before plus 1, read from its own tee.
            var readers: [TeeReader<Int>] = []
            let source = Generator<Int, Void, Void> { y in
                try y.yield(1)
                for x in readers[0] { try y.yield(x + 1) }
            }
            readers = source.tee(2)
            weakSource = source
            var seen: [Int] = []
            for _ in 0..<5 { seen.append(try readers[1].nextValue()!) }
            XCTAssertEqual(seen, [1, 2, 3, 4, 5])
        }
        XCTAssertNotNil(weakSource, "nothing outside holds it: the suspended stack holds the readers, which hold it")
        try weakSource?.close()
        XCTAssertNil(weakSource, "close broke the cycle")
    }
}

/// The merge of two increasing sequences, without duplicates (the Hamming numbers' merge).
enum HammingMerge {
    static func merge(_ g: Generator<Int, Void, Void>, _ h: Generator<Int, Void, Void>) -> Generator<Int, Void, Void> {
        Generator { y in
            var a = try g.nextValue()!
            var b = try h.nextValue()!
            while true {
                if a < b {
                    try y.yield(a)
                    a = try g.nextValue()!
                } else if a > b {
                    try y.yield(b)
                    b = try h.nextValue()!
                } else {
                    try y.yield(a)
                    a = try g.nextValue()!
                    b = try h.nextValue()!
                }
            }
        }
    }
}
