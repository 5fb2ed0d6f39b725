import Dispatch
import Foundation
import RJPromises
import XCTest

@testable import RJIterator

// Every rj_await form and its faults (Async/RJAwait.swift, Async/AwaitSlot.swift).
final class RJAwaitTests: RJAsyncTestCase {

    func testAwaitOutsideAsyncGivesAClearError() {
        let r = rj_await(later(1))
        XCTAssertEqual(r.error as? RJAsyncError, .notInAsync)
        // Issue 29: the message is true inside a Generator run by an rj_async body too, and names remedies that exist.
        XCTAssertEqual("\(RJAsyncError.notInAsync)", "RJIterator: rj_await (or rj_awaitValue) called outside the body of an rj_async task or an AsyncGenerator (a Generator's body is outside, even one run inside rj_async: its await cannot suspend the task); await in the rj_async body itself, or make the generator an AsyncGenerator; in async code, use Swift's await (try await gen.next(), for try await)")
    }

    func testPlainValueComesStraightBack() {
        let log = Log()
        runAsync {
            let r = rj_await(value: 42)
            log.add("\(r.value as! Int) \(r.error == nil)")
        }
        XCTAssertEqual(log.all, ["42 true"])
    }

    func testCallbackCalledTwiceIsIgnoredTheSecondTime() {
        let log = Log()
        runAsync {
            let r = rj_await { callback in
                callback("first", nil)
                callback("second", nil)
            }
            log.add(r.value as! String)
        }
        XCTAssertEqual(log.all, ["first"])
    }

    func testDroppedCallbackGivesAnErrorAndTheBodyFinishes() {
        let log = Log()
        let liveBefore = liveBodies
        runAsync {
            let r = rj_await { _ in /* never calls, keeps nothing */ }
            log.add("\(r.error as? RJAsyncError == .callbackDropped)")
        }
        XCTAssertEqual(log.all, ["true"])
        XCTAssertEqual(liveBodies, liveBefore, "the body's stack was given back")
    }

    func testCallbackDroppedLaterOnAnotherThread() {
        let log = Log()
        runAsync {
            let r = rj_await { callback in
                let box = UncheckedBox(value: callback)
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { _ = box }
            }
            log.add("\(r.error as? RJAsyncError == .callbackDropped)")
        }
        XCTAssertEqual(log.all, ["true"])
    }

    func testCancelCancelsAnAwaitedPromise() {
        let log = Log()
        let promise = Promise<Int>.pending()
        promise.onCancel(on: .global()) { log.add("promise cancelled") }
        let started = DispatchSemaphore(value: 0)
        let done = expectation(description: "finally")
        let task = rj_async(on: queue) {
            started.signal()
            let r = rj_await(promise)
            log.add("await \(r.error is CancellationError)")
        }.finally { done.fulfill() }
        started.wait()
        queue.sync {}
        task.cancel()
        wait(for: [done], timeout: 3)
        for _ in 0..<5_000 where log.all.count < 2 { usleep(1000) }
        XCTAssertEqual(Set(log.all), ["await true", "promise cancelled"])
        XCTAssertTrue(promise.isCancelled)
    }

    func testATimeoutEndsASlowAwaitWithTimedOutAndLetsAFastOneThrough() {
        let log = Log()
        runAsync {
            let slow = rj_await(later(1, after: 2), timeout: 0.02)
            log.add("\(slow.error as? RJAsyncError == .timedOut)")
            let fast = rj_await(later(2), timeout: 2)
            log.add("\(fast.value as! Int)")
        }
        XCTAssertEqual(log.all, ["true", "2"])
    }

    // One slot serves every await of a task; what completes an earlier await must never
    // complete a later one.

    func testALateCallbackOfAnEarlierAwaitDoesNotCompleteTheNextOne() {
        let stash = LockedCallback()
        let log = Log()
        runAsync {
            let first = rj_await({ callback in stash.set(callback) }, timeout: 0.02)
            log.add("first timed out: \(first.error as? RJAsyncError == .timedOut)")
            let second = rj_await { callback in
                stash.call("late", nil)  // the first await's callback, after its timeout
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { callback("second", nil) }
            }
            log.add("second: \(second.value ?? "nil")")
        }
        XCTAssertEqual(log.all, ["first timed out: true", "second: second"])
    }

    func testATimerOfAnEarlierAwaitDoesNotTimeOutTheNextOne() {
        let log = Log()
        runAsync {
            let first = rj_await({ callback in callback(1, nil) }, timeout: 0.02)
            // Still waiting when the first await's timer fires.
            let second = rj_await(later(2, after: 0.15))
            log.add("\(first.value ?? "nil") \(second.value ?? "nil") \(second.error.map { "\($0)" } ?? "ok")")
        }
        XCTAssertEqual(log.all, ["1 2 ok"])
    }

    func testADroppedCallbackOfAnEarlierAwaitDoesNotCompleteTheNextOne() {
        let stash = LockedCallback()
        let log = Log()
        runAsync {
            let first = rj_await({ callback in stash.set(callback) }, timeout: 0.02)
            let second = rj_await { callback in
                stash.set(nil)  // the first await's callback, never called, released now
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { callback(2, nil) }
            }
            log.add("\(first.error as? RJAsyncError == .timedOut) \(second.value ?? "nil")")
        }
        XCTAssertEqual(log.all, ["true 2"])
    }

    func testAwaitingPromises() {
        let log = Log()
        runAsync {
            let fulfilled = rj_await(Promise(1))
            log.add("\(fulfilled.value as! Int)")
            let pending = Promise<String>.pending()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { pending.fulfill("later") }
            log.add(rj_await(pending).value as! String)
            let rejected = rj_await(Promise<Int>(TestError(code: 2)))
            log.add("\(rejected.error as? TestError == TestError(code: 2))")
            log.add("\((try? rj_awaitValue(Promise(3))) ?? -1)")
        }
        XCTAssertEqual(log.all, ["1", "later", "true", "3"])
    }

    func testTypedAwaits() {
        let log = Log()
        runAsync {
            let value: Int? = try? rj_awaitValue { (done: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                DispatchQueue.global().async { done(.success(7)) }
            }
            log.add("\(value ?? -1)")
            do {
                let _: Int = try rj_awaitValue { (done: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                    done(.failure(TestError(code: 4)))
                }
            } catch {
                log.add("\(error)")
            }
            let fromAsync = try? rj_awaitValue { () async throws -> String in
                try await Task.sleep(nanoseconds: 1_000_000)
                return "swift async"
            }
            log.add(fromAsync ?? "nil")
        }
        XCTAssertEqual(log.all, ["7", "TestError(code: 4)", "swift async"])
    }

    /// Each callback shape, passed on without annotations as a user would, picks its typed form.
    func testTypedAwaitsForEveryCallbackShape() {
        @Sendable func objcStyle(_ id: Int, completion: @escaping @Sendable (String?, (any Error)?) -> Void) {
            DispatchQueue.global().async { id > 0 ? completion("user \(id)", nil) : completion(nil, TestError(code: id)) }
        }
        @Sendable func neither(completion: @escaping @Sendable (String?, (any Error)?) -> Void) { completion(nil, nil) }
        @Sendable func plain(completion: @escaping @Sendable (Int) -> Void) { DispatchQueue.global().async { completion(42) } }
        @Sendable func result(completion: @escaping @Sendable (Result<Int, any Error>) -> Void) { completion(.success(9)) }
        let log = Log()
        runAsync {
            do {
                let user: String = try rj_awaitValue { done in objcStyle(7, completion: done) }
                log.add(user)
                let answer: Int = try rj_awaitValue { done in plain(completion: done) }
                log.add("\(answer)")
                let nine: Int = try rj_awaitValue { done in result(completion: done) }
                log.add("\(nine)")
                let _: String = try rj_awaitValue { done in objcStyle(-3, completion: done) }
            } catch {
                log.add("\(error)")
            }
            do {
                let _: String = try rj_awaitValue { done in neither(completion: done) }
            } catch {
                log.add("\(error)")
            }
        }
        XCTAssertEqual(log.all, [
            "user 7", "42", "9", "TestError(code: -3)",
            "RJIterator: rj_await got an unexpected value: the callback gave neither a value nor an error",
        ])
    }

    // Issue 29: the work closure runs at once and is not kept, so it need not be @Sendable: it
    // may capture a loop's var (strict concurrency refused this before).
    func testTheWorkClosureMayCaptureALoopVar() {
        let log = Log()
        runAsync {
            func fetchPage(_ n: Int, _ done: @escaping @Sendable ([Int]?, (any Error)?) -> Void) {
                DispatchQueue.global().async { done([n * 10], nil) }
            }
            var page = 0
            while page < 3 {
                let batch: [Int]? = try? rj_awaitValue { done in fetchPage(page, done) }
                log.add("\(batch ?? [])")
                page += 1
            }
        }
        XCTAssertEqual(log.all, ["[0]", "[10]", "[20]"])
    }

    func testAwaitAllAndFirstOf() {
        let log = Log()
        runAsync {
            let all = rj_await(all: [later("a", after: 0.02), later("b"), later(nil, error: TestError(code: 1))])
            log.add(all.map { "\($0.value ?? "-")/\($0.error == nil)" }.joined(separator: ","))
            let first = rj_await(firstOf: [later("slow", after: 1), later("fast", after: 0.001)])
            log.add("\(first.index.map(String.init) ?? "nil") \(first.result.value as! String)")
            log.add("\(rj_await(all: []).count)")
            let none = rj_await(firstOf: [])
            let noTasks = (none.result.error as? RJAsyncError).map { if case .noTasks = $0 { return true } else { return false } } ?? false
            log.add("\(none.index == nil) \(noTasks)")
        }
        XCTAssertEqual(log.all, ["a/true,b/true,-/false", "1 fast", "0", "true true"])
    }

    /// Every way an await can complete, racing: the work calls back inside its closure (the
    /// lock-free path), on another thread at once, or not at all; a timeout of zero fires on the
    /// body's queue meanwhile; another thread cancels some tasks. Each await must complete
    /// exactly once, with a value it was given or the error of what won. A task cancelled
    /// before its body started skips the body (as `testCancelBeforeStartSkipsTheBodyButRunsFinally`
    /// shows), so the count is per task: 0 awaits for a body that never started (only a
    /// cancelled task may be one), 50 for every body that did.
    func testCompletionsRacingTimeoutsAndCancellationCompleteEachAwaitOnce() {
        let concurrent = DispatchQueue(label: "rj.async.race", attributes: .concurrent)
        let group = DispatchGroup()
        let outcomes = Log()
        let tasks = LockedTasks()
        for t in 0..<40 {
            group.enter()
            let task = rj_async(on: concurrent) {
                outcomes.add("\(t) start")
                for i in 0..<50 {
                    let r = rj_await({ callback in
                        switch (t + i) % 3 {
                        case 0: callback(i, nil)
                        case 1: DispatchQueue.global().async { callback(i, nil) }
                        default: break  // dropped
                        }
                    }, timeout: 0)
                    switch (r.value as? Int, r.error as? RJAsyncError) {
                    case (i?, nil): outcomes.add("\(t) value")
                    case (nil, .timedOut?), (nil, .callbackDropped?): outcomes.add("\(t) error")
                    case (nil, nil) where r.error is CancellationError: outcomes.add("\(t) error")
                    default: outcomes.add("wrong: \(r.value ?? "nil") \(r.error.map { "\($0)" } ?? "nil")")
                    }
                }
            }.finally { group.leave() }
            tasks.add(task)
        }
        DispatchQueue.global().async { for (n, task) in tasks.all.enumerated() where n % 2 == 0 { task.cancel() } }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(outcomes.all.filter { $0.hasPrefix("wrong") }, [])
        for t in 0..<40 {
            let mine = outcomes.all.filter { $0.hasPrefix("\(t) ") }
            let starts = mine.filter { $0.hasSuffix(" start") }.count
            if starts == 0 {
                XCTAssertTrue(t % 2 == 0, "task \(t) was never cancelled, yet its body never ran")
                XCTAssertEqual(mine, [], "task \(t): an await completed without its body")
            } else {
                XCTAssertEqual(starts, 1, "task \(t): the body ran twice")
                XCTAssertEqual(mine.count - 1, 50, "task \(t): an await completed twice, or never")
            }
        }
    }

    // Issue 52: an await of a callback begins in its host only once the work's closure has
    // returned without calling it; a call from another thread hands its result over through the
    // token. The call raced against the closure's return (before it, while the body registers,
    // after it) in each callback form, 4,000 times: each await gets its own value, once, and
    // no body waits for ever (no spin, no lost hand-over).
    func testACallbackCalledOnAnotherThreadAsTheClosureReturnsIsTakenOnce() {
        let group = DispatchGroup()
        let wrong = Log()
        let counted = EventCounter()
        for t in 0..<8 {
            group.enter()
            rj_async(on: DispatchQueue(label: "racer \(t)")) {
                for i in 0..<500 {
                    let spin = (i * 7 + t) % 40
                    func later(_ call: @escaping @Sendable () -> Void) {
                        DispatchQueue.global().async {
                            for _ in 0..<spin { _ = DispatchTime.now() }
                            call()
                        }
                        for _ in 0..<(40 - spin) { _ = DispatchTime.now() }
                    }
                    let got: Int?
                    switch i % 3 {
                    case 0:
                        got = rj_await { done in later { done(i, nil) } }.value as? Int
                    case 1:
                        got = try? rj_awaitValue { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in later { done(i, nil) } }
                    default:
                        got = try? rj_awaitValue { (done: @escaping @Sendable (Result<Int, any Error>) -> Void) in later { done(.success(i)) } }
                    }
                    if got != i { wrong.add("\(t).\(i): \(got.map(String.init) ?? "nil")") }
                    counted.add("await")
                }
            }.finally { group.leave() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(wrong.all, [])
        XCTAssertEqual(counted["await"], 4000)
    }

    func testAwaitInsideAGeneratorInsideABodyIsOutsideAsync() {
        let log = Log()
        runAsync {
            let gen = Generator<Int, Void, Void> { y in
                let r = rj_await(later(1))
                try y.yield(r.error as? RJAsyncError == .notInAsync ? 1 : 0)
            }
            log.add("\((try? gen.next())?.yieldedValue ?? -1)")
        }
        XCTAssertEqual(log.all, ["1"])
    }

    // Issue 29 (found by a newcomer): a callback API whose callback takes optional values of a
    // type other than Any? is awaited, not handed back uncalled by rj_await(value:).
    func testATrailingClosureOverATypedOptionalCallbackIsAwaited() {
        @Sendable func fetchName(completion: @escaping @Sendable (String?, (any Error)?) -> Void) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.005) { completion("Rui", nil) }
        }
        let log = Log()
        runAsync {
            let r = rj_await { done in fetchName(completion: done) }
            log.add("\(r.value as? String ?? "not awaited: \(String(describing: r.value))")")
        }
        XCTAssertEqual(log.all, ["Rui"])
    }

    // Issue 40, 5: rj_await(value:) answers as the other forms do, outside a body (a plain
    // Generator's included) and once its task is cancelled, as docs/async.md's fault table says.
    func testAPlainValueOutsideABodyOrAfterCancelGivesTheOtherFormsErrors() {
        XCTAssertEqual(rj_await(value: 42).error as? RJAsyncError, .notInAsync)
        let log = Log()
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let done = expectation(description: "finally")
        let task = rj_async(on: queue) {
            let gen = Generator<Int, Void, Void> { y in
                try y.yield(rj_await(value: 1).error as? RJAsyncError == .notInAsync ? 1 : 0)
            }
            log.add("in a Generator: \((try? gen.next())?.yieldedValue ?? -1)")
            log.add("running: \(rj_await(value: 2).value as? Int ?? -1)")
            started.signal()
            proceed.wait()
            let r = rj_await(value: 3)
            log.add("cancelled: \(r.value == nil) \(r.error is CancellationError)")
        }.finally { done.fulfill() }
        started.wait()
        task.cancel()
        proceed.signal()
        wait(for: [done], timeout: 3)
        XCTAssertEqual(log.all, ["in a Generator: 1", "running: 2", "cancelled: true true"])
    }

    func testAPlainValueStillComesStraightBack() {
        let log = Log()
        runAsync {
            log.add("\(rj_await(value: 42).value as? Int ?? -1) \(rj_await(value: nil).value == nil)")
        }
        XCTAssertEqual(log.all, ["42 true"])
    }
}
