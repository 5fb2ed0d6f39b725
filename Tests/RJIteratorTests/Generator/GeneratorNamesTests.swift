import XCTest

@testable import RJIterator

// Issue 40, 1: the spellings a user writes for our types compile and mean our types. Most of
// this file is a compile test: before the issue, `RJIterator.Generator` did not compile (the seed
// class `RJIterator` shadows the module), and a Generator could not be a Sequence's iterator.

/// The program, module-qualified: a Sequence whose iterator is a Generator.
private struct Countdown: Sequence {
    let from: Int
    func makeIterator() -> RJIterator.Generator<Int, Void, Void> {
        RJIterator.Generator { y in for i in stride(from: from, through: 1, by: -1) { try y.yield(i) } }
    }
}

/// Unqualified in the signature; in the body, `Generator` alone is `Sequence.Generator`
/// (unavailable), so the body says `.init` (docs/generators.md, "Naming the types").
private struct Countup: Sequence {
    let to: Int
    func makeIterator() -> Generator<Int, Void, Void> {
        .init { y in for i in 1...to { try y.yield(i) } }
    }
}

/// A Sequence whose body throws: the iterator ends, and the error stays with the generator.
private struct Failing: Sequence {
    struct Oops: Error {}
    func makeIterator() -> RJIterator.Generator<Int, Void, Void> {
        RJIterator.Generator { y in try y.yield(1); throw Oops() }
    }
}

final class GeneratorNamesTests: XCTestCase {

    func testASequenceWhoseIteratorIsAGenerator() {
        XCTAssertEqual(Array(Countdown(from: 3)), [3, 2, 1])
        XCTAssertEqual(Countup(to: 4).map { $0 * 10 }, [10, 20, 30, 40])
        var seen: [Int] = []
        for i in Countdown(from: 2) { seen.append(i) }
        XCTAssertEqual(seen, [2, 1])
        XCTAssertEqual(Array(Countdown(from: 5).lazy.filter { $0 % 2 == 1 }), [5, 3, 1])
    }

    func testAGeneratorIsAnIteratorAndTryNextStillGivesAStep() throws {
        let g = Generator<Int, Void, Void> { y in try y.yield(1); try y.yield(2); try y.yield(3) }
        let step = try g.next()                       // the throwing next: a GeneratorStep
        XCTAssertEqual(step.yieldedValue, 1)
        var any: any IteratorProtocol<Int> = g         // the same generator as an iterator
        XCTAssertEqual(any.next(), 2)
        XCTAssertEqual(any.next(), 3)
        XCTAssertNil(any.next())
        XCTAssertEqual(g.state, .completed)
        XCTAssertEqual(Array(IteratorSequence(Generator<Int, Void, Void> { y in try y.yield(7) })), [7])
    }

    func testAnIteratorWhoseBodyThrowsPassesTheErrorToTheEnclosingBody() throws {
        // Inside a generator's body, the error is kept for that body (as a for-in's): it ends
        // the outer body by throwing it.
        let outer = Generator<Int, Void, Void> { y in
            for i in Failing() { try y.yield(i) }
            try y.yield(99)   // not reached: the kept error is thrown here
        }
        XCTAssertEqual(try outer.next().yieldedValue, 1)
        XCTAssertThrowsError(try outer.next()) { XCTAssertTrue($0 is Failing.Oops) }
    }

    func testEveryPublicTypeIsReachableAsAMemberOfTheSeedClass() {
        XCTAssertTrue(RJIterator.Generator<Int, String, Bool>.self == Generator<Int, String, Bool>.self)
        XCTAssertTrue(RJIterator.Yielder<Int, String>.self == Yielder<Int, String>.self)
        XCTAssertTrue(RJIterator.GeneratorStep<Int, Bool>.self == GeneratorStep<Int, Bool>.self)
        XCTAssertTrue(RJIterator.GeneratorIterator<Int, Bool>.self == GeneratorIterator<Int, Bool>.self)
        XCTAssertTrue(RJIterator.GeneratorError.self == GeneratorError.self)
        XCTAssertTrue(RJIterator.GeneratorState.self == GeneratorState.self)
        XCTAssertTrue(RJIterator.GeneratorExit.self == GeneratorExit.self)
        XCTAssertTrue(RJIterator.TeeReader<Int>.self == TeeReader<Int>.self)
        XCTAssertTrue(RJIterator.AsyncGenerator<Int, String, Bool>.self == AsyncGenerator<Int, String, Bool>.self)
        XCTAssertTrue(RJIterator.AsyncYielder<Int, String>.self == AsyncYielder<Int, String>.self)
        XCTAssertTrue(RJIterator.AsyncGeneratorIterator<Int, Bool>.self == AsyncGeneratorIterator<Int, Bool>.self)
        XCTAssertTrue(RJIterator.RJResult.self == RJResult.self)
        XCTAssertTrue(RJIterator.RJAsyncTask.self == RJAsyncTask.self)
        XCTAssertTrue(RJIterator.RJMainActorTask.self == RJMainActorTask.self)
        XCTAssertTrue(RJIterator.RJAsyncError.self == RJAsyncError.self)
        XCTAssertTrue(RJIterator.RJAsyncCallback.self == RJAsyncCallback.self)
        XCTAssertTrue(RJIterator.RJAsyncClosure.self == RJAsyncClosure.self)
        XCTAssertTrue(RJIterator.RJRuntime.self == RJRuntime.self)
        XCTAssertTrue(RJIterator.StackMode.self == StackMode.self)
        XCTAssertTrue(RJIterator.CoroutineDump.self == CoroutineDump.self)
        // The seed API is where it was: the class, its next and rj_yield.
        let it = RJIterator { rj_yield(1); return 2 }
        XCTAssertEqual(it.next().value as? Int, 1)
    }
}
