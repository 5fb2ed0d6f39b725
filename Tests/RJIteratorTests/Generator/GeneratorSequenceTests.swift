import XCTest

@testable import RJIterator

// for-in, forEach and collect (Generator/Generator+Sequence.swift).
final class GeneratorConsumptionTests: XCTestCase {
    func testForEachVisitsEveryValueAndGivesTheReturnValue() throws {
        let g = Generator<Int, Void, String> { y in
            for i in 1...3 { try y.yield(i) }
            return "done"
        }
        var seen: [Int] = []
        let result = try g.forEach { seen.append($0) }
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(result, "done")
    }

    func testForEachRethrowsTheBodyError() {
        let g = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 11)
        }
        var seen: [Int] = []
        XCTAssertThrowsError(try g.forEach { seen.append($0) }) { XCTAssertEqual($0 as? TestError, TestError(code: 11)) }
        XCTAssertEqual(seen, [1])
    }

    func testForEachClosureErrorLeavesTheGeneratorSuspended() throws {
        let g = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
        XCTAssertThrowsError(try g.forEach { if $0 == 2 { throw TestError(code: 12) } })
        XCTAssertEqual(g.state, .suspended)
        XCTAssertEqual(try g.next().yieldedValue, 3)
    }

    func testCollectGathersEveryValue() throws {
        let g = Generator<Int, Void, Void> { y in for i in 1...4 { try y.yield(i * i) } }
        XCTAssertEqual(try g.collect(), [1, 4, 9, 16])
    }

    func testCollectRethrowsTheBodyError() {
        let g = Generator<Int, Void, Void> { y in
            try y.yield(1)
            throw TestError(code: 13)
        }
        XCTAssertThrowsError(try g.collect()) { XCTAssertEqual($0 as? TestError, TestError(code: 13)) }
    }
}
