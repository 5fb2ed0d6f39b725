import Foundation
import XCTest

@testable import RJIterator

final class GeneratorThreadTests: XCTestCase {
    func testSuspendedGeneratorResumesOnAnotherThread() throws {
        let gen = Generator<String, Void, String> { y in
            try y.yield(Thread.isMainThread ? "main" : "other")
            try y.yield(Thread.isMainThread ? "main" : "other")
            return "end"
        }
        XCTAssertEqual(try gen.next(), .yielded(Thread.isMainThread ? "main" : "other"))
        let box = UnsafeTransfer(gen)
        let result = UnsafeTransfer(Log())
        onOtherThread {
            let step = try? box.value.next()
            result.value.add(step?.yieldedValue ?? "error")
        }
        XCTAssertEqual(result.value.all, ["other"])
        XCTAssertEqual(try gen.next(), .returned("end"))
    }

    func testSecondThreadGetsAlreadyRunningWhileFirstRuns() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let gen = Generator<Int, Void, Void> { y in
            entered.signal()
            release.wait()
            try y.yield(1)
        }
        let box = UnsafeTransfer(gen)
        let firstDone = DispatchSemaphore(value: 0)
        let first = Thread {
            _ = try? box.value.next()
            firstDone.signal()
        }
        first.start()
        entered.wait()
        XCTAssertEqual(gen.state, .running)
        XCTAssertThrowsError(try gen.next()) { XCTAssertEqual($0 as? GeneratorError, .alreadyRunning) }
        XCTAssertThrowsError(try gen.return(())) { XCTAssertEqual($0 as? GeneratorError, .alreadyRunning) }
        release.signal()
        firstDone.wait()
        XCTAssertEqual(gen.state, .suspended)
    }

    func testRacingResumesRunBodyExactlyOncePerStep() throws {
        // Many threads hammer one generator; every successful next must see a distinct value
        // and the failures must all be alreadyRunning.
        let total = 2_000
        let gen = Generator<Int, Void, Void> { y in for i in 0..<total { try y.yield(i) } }
        let box = UnsafeTransfer(gen)
        let lock = NSLock()
        nonisolated(unsafe) var seen: [Int] = []
        nonisolated(unsafe) var otherErrors = 0
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            while true {
                do {
                    guard case .yielded(let v) = try box.value.next() else { return }
                    lock.withLock { seen.append(v) }
                } catch GeneratorError.alreadyRunning {
                    continue
                } catch {
                    lock.withLock { otherErrors += 1 }
                    return
                }
            }
        }
        XCTAssertEqual(otherErrors, 0)
        XCTAssertEqual(seen.sorted(), Array(0..<total))
    }

    func testRacingFirstResumesStartTheBodyOnce() throws {
        // Two threads call the first `next` of each of many fresh generators at once: the
        // body starts exactly once, the losing call gets alreadyRunning or (if it came after)
        // the next step, and no step is lost or repeated.
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var starts = 0
            var steps: [Int] = []
            var otherErrors = 0
        }
        for _ in 0..<300 {
            let counter = Counter()
            let gen = Generator<Int, Void, Void> { y in
                counter.lock.withLock { counter.starts += 1 }
                try y.yield(0)
                try y.yield(1)
            }
            let box = UnsafeTransfer(gen)
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    if case .yielded(let v) = try box.value.next() { counter.lock.withLock { counter.steps.append(v) } }
                } catch GeneratorError.alreadyRunning {
                } catch {
                    counter.lock.withLock { counter.otherErrors += 1 }
                }
            }
            XCTAssertEqual(counter.starts, 1)
            XCTAssertEqual(counter.otherErrors, 0)
            XCTAssertTrue(counter.steps == [0] || counter.steps.sorted() == [0, 1], "\(counter.steps)")
        }
    }

    struct Accumulator {
        var total = 0
        mutating func run(_ y: Yielder<Int, Void>) throws {
            // A modify access to `holder.acc` is open for the whole call, across the yields.
            total += 1
            try y.yield(total)
            total += 1
            try y.yield(total)
        }
    }
    final class Holder {
        var acc = Accumulator()
        var other = 0
    }

    func testYieldInsideExclusiveAccessThenResumeOnAnotherThread() throws {
        let holder = Holder()
        let gen = Generator<Int, Void, Void> { y in try holder.acc.run(y) }
        XCTAssertEqual(try gen.next().yieldedValue, 1)
        // The caller goes on using the thread's access set while the body's access is open.
        holder.other += 1
        let box = UnsafeTransfer((gen, holder))
        let log = UnsafeTransfer(Log())
        onOtherThread {
            let (g, h) = box.value
            h.other += 1
            log.value.add("\((try? g.next())?.yieldedValue ?? -1)")
            log.value.add("\((try? g.next())?.yieldedValue == nil)")
        }
        XCTAssertEqual(log.value.all, ["2", "true"])
        XCTAssertEqual(gen.state, .completed)
        XCTAssertEqual(holder.acc.total, 2)
        holder.acc.total = 0  // a fresh modify access: nothing stale is left in the set
        XCTAssertEqual(holder.other, 2)
    }

    func testCallerAccessOpenAcrossResumeDoesNotLeakIntoBody() throws {
        let holder = Holder()
        let gen = Generator<Int, Void, Void> { y in
            try y.yield(1)
            holder.other += 10  // the caller's access to `acc` is unrelated: no conflict
            try y.yield(2)
        }
        struct Driver {
            var n = 0
            mutating func drive(_ g: Generator<Int, Void, Void>) throws -> [Int] {
                var out: [Int] = []
                while case .yielded(let v) = try g.next() { n += 1; out.append(v) }
                return out
            }
        }
        final class DriverHolder { var d = Driver() }
        let dh = DriverHolder()
        XCTAssertEqual(try dh.d.drive(gen), [1, 2])
        XCTAssertEqual(holder.other, 10)
        XCTAssertEqual(dh.d.n, 2)
    }

    func testManyGeneratorsOnManyThreads() {
        let threads = 4
        let perThread = 500
        let errors = UnsafeTransfer(Log())
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let gen = Generator<Int, Void, Int> { y in
                    var sum = 0
                    for k in 0..<5 { try y.yield(k); sum += k }
                    return sum + i
                }
                do {
                    var count = 0
                    while case .yielded = try gen.next() { count += 1 }
                    let last = try gen.next()
                    if count != 5 || last != .returned(10 + i) { errors.value.add("t\(t) i\(i)") }
                } catch {
                    errors.value.add("\(error)")
                }
            }
        }
        XCTAssertEqual(errors.value.all, [])
    }
}
