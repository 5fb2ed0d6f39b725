import Dispatch
import Foundation
import XCTest

@testable import RJIterator

// Errors through a pipeline of generators, for every way one stage consumes another (issue 29).
// Python, ES6 and Kotlin's sequences raise at the loop itself; a Swift for-in cannot rethrow, so a
// for-in inside a generator's body ends and its body's next `yield` (or its end) throws the
// error instead (docs/generators.md, "for-in and errors"). The idioms that throw at once
// (`nextValue`, `forEach`, `collect`, `yieldAll`) are checked beside it.

private struct Missing: Error, Equatable {}

/// A source that yields two lines, then fails, with its cleanup logged.
private func lines(_ log: Log) -> Generator<String, Void, Void> {
    Generator { y in
        defer { log.add("source closed") }
        try y.yield("a,b")
        try y.yield("c,d")
        throw Missing()
    }
}

final class GeneratorPipelineTests: XCTestCase {
    // The pipeline: a for-in stage over a source that throws, read with nextValue in a
    // do/catch. The error reaches the catch; both stages' cleanups ran; the values before it
    // came through.
    func testAThrowingSourceUnderAForInStageReachesTheConsumersCatch() {
        let log = Log()
        let fields = Generator<[Substring], Void, Void> { y in
            defer { log.add("stage closed") }
            for line in lines(log) { try y.yield(line.split(separator: ",")) }
        }
        var rows: [[Substring]] = []
        do {
            while let row = try fields.nextValue() { rows.append(row) }
            XCTFail("the loop finished as if the input had ended")
        } catch {
            XCTAssertEqual(error as? Missing, Missing())
        }
        XCTAssertEqual(rows, [["a", "b"], ["c", "d"]])
        XCTAssertEqual(log.all, ["source closed", "stage closed"])
        XCTAssertEqual(fields.state, .completed)
        XCTAssertThrowsError(try fields.nextValue(), "and again, as every error of a body") { XCTAssertTrue($0 is Missing) }
    }

    // The code after the loop runs (Swift's for-in ends), but the stage cannot complete as if its
    // input had ended: it ends by throwing the source's error, and its return value is dropped.
    func testAStageThatReturnsAfterTheLoopThrowsInstead() {
        let log = Log()
        let stage = Generator<String, Void, String> { y in
            for line in lines(log) { try y.yield(line) }
            log.add("after the loop")
            return "complete"
        }
        XCTAssertEqual(try stage.nextValue(), "a,b")
        XCTAssertEqual(try stage.nextValue(), "c,d")
        XCTAssertThrowsError(try stage.next()) { XCTAssertTrue($0 is Missing, "\($0)") }
        XCTAssertEqual(log.all, ["source closed", "after the loop"])
        XCTAssertNil(stage.returnedValue)
    }

    // A yield after the loop throws the error: what follows it does not run; a cleanup does.
    func testTheStagesNextYieldThrowsTheErrorAndItsCleanupRuns() {
        let log = Log()
        let stage = Generator<String, Void, Void> { y in
            defer { log.add("stage cleanup") }
            for line in lines(log) { try y.yield(line) }
            try y.yield("summary")
            log.add("not reached")
        }
        XCTAssertThrowsError(try stage.collect()) { XCTAssertTrue($0 is Missing) }
        XCTAssertEqual(log.all, ["source closed", "stage cleanup"])
    }

    // The stage can handle the error where it surfaces, as any error thrown into it.
    func testTheStageMayCatchTheErrorAtItsYield() throws {
        let log = Log()
        let stage = Generator<String, Void, Void> { y in
            for line in lines(log) { try y.yield(line) }
            do { try y.yield("summary") } catch is Missing { try y.yield("recovered") }
        }
        XCTAssertEqual(try stage.collect(), ["a,b", "c,d", "recovered"])
    }

    // Through two for-in stages: each ends, each passes the error on.
    func testThroughTwoForInStages() {
        let log = Log()
        let upper = Generator<String, Void, Void> { y in
            defer { log.add("upper closed") }
            for line in lines(log) { try y.yield(line.uppercased()) }
        }
        let numbered = Generator<String, Void, Void> { y in
            defer { log.add("numbered closed") }
            var n = 0
            for line in upper {
                n += 1
                try y.yield("\(n) \(line)")
            }
        }
        var seen: [String] = []
        XCTAssertThrowsError(try numbered.forEach { seen.append($0) }) { XCTAssertTrue($0 is Missing) }
        XCTAssertEqual(seen, ["1 A,B", "2 C,D"])
        XCTAssertEqual(log.all, ["source closed", "upper closed", "numbered closed"])
    }

    // The idioms that throw at once, inside a stage: forEach, collect, yieldAll, nextValue.
    func testForEachCollectYieldAllAndNextValueInAStageThrowAtOnce() {
        let stages: [(String, (Log) -> Generator<String, Void, Void>)] = [
            ("forEach", { log in Generator { y in try lines(log).forEach { try y.yield($0) }; log.add("after") } }),
            ("collect", { log in Generator { y in for line in try lines(log).collect() { try y.yield(line) }; log.add("after") } }),
            ("yieldAll", { log in Generator { y in try y.yieldAll(lines(log)); log.add("after") } }),
            ("nextValue", { log in Generator { y in
                let source = lines(log)
                while let line = try source.nextValue() { try y.yield(line) }
                log.add("after")
            } }),
        ]
        for (name, make) in stages {
            let log = Log()
            XCTAssertThrowsError(try make(log).collect(), name) { XCTAssertTrue($0 is Missing, name) }
            XCTAssertFalse(log.all.contains("after"), "\(name): nothing after the failing call runs")
            XCTAssertTrue(log.all.contains("source closed"), name)
        }
    }

    // A tee reader read with for-in inside a stage behaves as the generator does; read with
    // nextValue, it throws there.
    func testATeeReaderInAForInStage() {
        let log = Log()
        let readers = lines(log).tee(2)
        let stage = Generator<String, Void, Void> { y in
            for line in readers[0] { try y.yield(line) }
        }
        XCTAssertThrowsError(try stage.collect()) { XCTAssertTrue($0 is Missing) }
        XCTAssertEqual(try readers[1].nextValue(), "a,b")
        XCTAssertEqual(try readers[1].nextValue(), "c,d")
        XCTAssertThrowsError(try readers[1].nextValue()) { XCTAssertTrue($0 is Missing) }
    }

    // Two for-in loops fail before the next yield: the first error is the one thrown.
    func testTheFirstOfTwoFailedLoopsIsThrown() {
        struct Second: Error {}
        let log = Log()
        let stage = Generator<Int, Void, Void> { y in
            for _ in lines(log) {}
            for _ in Generator<Int, Void, Void>({ _ in throw Second() }) {}
            try y.yield(1)
        }
        XCTAssertThrowsError(try stage.next()) { XCTAssertTrue($0 is Missing, "\($0)") }
    }

    // Where nothing throws, for-in is as it always was.
    func testForInWithoutErrorsIsUnchanged() throws {
        let doubled = Generator<Int, Void, Int> { y in
            var count = 0
            for x in Generator<Int, Void, Void>({ y in for i in 1...3 { try y.yield(i) } }) {
                try y.yield(x * 2)
                count += 1
            }
            return count
        }
        XCTAssertEqual(try doubled.forEach { _ in }, 3)
    }

    // In an rj_async body the error is the task's: its catch handlers get it.
    func testInAnRJAsyncBodyTheErrorIsTheTasks() async {
        let log = Log()
        let task = rj_async(on: DispatchQueue(label: "pipeline")) {
            for line in lines(log) { log.add(line) }
            log.add("after the loop")
        }
        do {
            try await task.wait()
            XCTFail("the task ended as if the loop had")
        } catch {
            XCTAssertTrue(error is Missing, "\(error)")
        }
        XCTAssertTrue(task.error is Missing)
        XCTAssertEqual(log.all, ["a,b", "c,d", "source closed", "after the loop"])
    }

    // In an async generator's body: its next yield throws, so its consumer's loop throws.
    func testInAnAsyncGeneratorsBodyTheConsumerGetsTheError() async {
        let log = Log()
        let stage = AsyncGenerator<String, Void, Void> { y in
            for line in lines(log) { try y.yield(line) }
            try y.yield("summary")
        }
        var seen: [String] = []
        do {
            for try await line in stage { seen.append(line) }
            XCTFail("the loop finished")
        } catch {
            XCTAssertTrue(error is Missing, "\(error)")
        }
        XCTAssertEqual(seen, ["a,b", "c,d"])
    }
}
