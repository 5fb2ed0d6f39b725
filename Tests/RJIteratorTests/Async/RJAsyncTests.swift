import Dispatch
import Foundation
import RJPromises
import XCTest

@testable import RJIterator

// rj_async tasks: start, queues, finally and catch, cancellation, Swift concurrency, lifetime
// (Async/RJAsync.swift). The awaits themselves are in RJAwaitTests.swift.
final class RJAsyncTests: RJAsyncTestCase {

    func testStartsAsynchronouslySoFinallyCanBeAttached() {
        let log = Log()
        let done = expectation(description: "finally")
        queue.sync {
            rj_async(on: queue) { log.add("body") }.finally {
                log.add("finally")
                done.fulfill()
            }
            log.add("after rj_async")
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.all, ["after rj_async", "body", "finally"])
    }

    func testLoginFlowInStraightLineCode() {
        let log = Log()
        let key = self.key
        runAsync {
            var result = rj_await(later(["uid": "80022", "token": "67625235555"]))
            let login = result.value as! [String: String]
            log.add("login \(login["uid"]!) on \(DispatchQueue.getSpecific(key: key) ?? "?")")
            result = rj_await(later(["name": "JimGreen"]))
            log.add("info \((result.value as! [String: String])["name"]!)")
            result = rj_await(later("image"))
            log.add("downloaded \(result.value as! String)")
            result = rj_await(later("beautiful image"))
            log.add("effect \(result.value as! String) on \(DispatchQueue.getSpecific(key: key) ?? "?")")
        }
        XCTAssertEqual(log.all, ["login 80022 on body queue", "info JimGreen", "downloaded image",
                                 "effect beautiful image on body queue"])
    }

    func testFailurePathReturnsEarlyAndFinallyStillRuns() {
        let log = Log()
        let task = runAsync {
            let r = rj_await(later(nil, error: TestError(code: 1)))
            if let error = r.error {
                log.add("failed \(error)")
                return
            }
            log.add("not reached")
        }
        XCTAssertEqual(log.all, ["failed TestError(code: 1)"])
        XCTAssertTrue(task.isFinished)
    }

    func testSynchronousCallbackStillResumesOnTheQueueWithoutBlocking() {
        let log = Log()
        let key = self.key
        runAsync {
            let r = rj_await { callback in callback("sync", nil) }
            log.add("\(r.value as! String) on \(DispatchQueue.getSpecific(key: key) ?? "?")")
        }
        XCTAssertEqual(log.all, ["sync on body queue"])
    }

    func testQueueIsNotBlockedWhileTheBodyWaits() {
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let done = expectation(description: "finally")
        rj_async(on: queue) {
            _ = rj_await { callback in
                DispatchQueue.global().async {
                    gate.wait()
                    callback(nil, nil)
                }
            }
            log.add("resumed")
        }.finally { done.fulfill() }
        // The queue runs other work while the body waits.
        queue.async { log.add("other work") }
        queue.sync {}
        XCTAssertEqual(log.all, ["other work"])
        gate.signal()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.all, ["other work", "resumed"])
    }

    // Issue 30: one cancellation error for every await host, Swift's `CancellationError` (an
    // async generator's awaits gave it already; an rj_async task's gave RJAsyncError.cancelled).
    func testCancelMakesPendingAndLaterAwaitsReturnCancelled() {
        let log = Log()
        let started = DispatchSemaphore(value: 0)
        let done = expectation(description: "finally")
        let task = rj_async(on: queue) {
            started.signal()
            let first = rj_await(later(1, after: 5))
            log.add("first \(first.error is CancellationError)")
            let second = rj_await(later(2))
            log.add("second \(second.error is CancellationError)")
        }.finally {
            log.add("finally")
            done.fulfill()
        }
        started.wait()
        queue.sync {}  // the body is suspended in its first await
        task.cancel()
        wait(for: [done], timeout: 3)
        XCTAssertEqual(log.all, ["first true", "second true", "finally"])
        XCTAssertTrue(task.isCancelled)
    }

    func testCancelBeforeStartSkipsTheBodyButRunsFinally() {
        let log = Log()
        let done = expectation(description: "finally")
        queue.sync {
            let task = rj_async(on: queue) { log.add("body") }
            task.finally {
                log.add("finally")
                done.fulfill()
            }
            task.cancel()
        }
        wait(for: [done], timeout: 3)
        XCTAssertEqual(log.all, ["finally"])
    }

    /// When `finally` runs, the body is gone: its stack is back in the pool and what its
    /// closure captured has been released (nothing of the body is released on the driver's
    /// thread after the task said it had finished). Each body ends differently: after an await
    /// that completed at once, after one across queues, by throwing.
    func testFinallyRunsOnceTheBodyAndWhatItCapturedAreReleased() {
        final class Weak: @unchecked Sendable { weak var captured: Captured? }
        final class Captured: @unchecked Sendable { init(_ weak: Weak) { weak.captured = self } }
        let seen = Log()
        // The body is made here so that nothing but the body holds what it captures.
        func body(_ kind: Int, _ captured: Captured) -> @Sendable () throws -> Void {
            return {
                withExtendedLifetime(captured) {}
                seen.add("body \(liveBodies)")
                switch kind {
                case 0: _ = rj_await { callback in callback(1, nil) }
                case 1: _ = rj_await(later(1))
                default: _ = try rj_awaitValue(Promise<Int>(TestError(code: 9)))
                }
            }
        }
        for kind in 0..<3 {
            for _ in 0..<10 {
                let done = expectation(description: "finally")
                let weak = Weak()
                rj_async(on: queue, body(kind, Captured(weak))).finally {
                    seen.add("finally \(liveBodies) \(weak.captured == nil ? "released" : "alive")")
                    done.fulfill()
                }
                wait(for: [done], timeout: 10)
                let pair = seen.all.suffix(2).map { $0.split(separator: " ") }
                XCTAssertEqual(pair.count, 2)
                XCTAssertEqual(Int(pair[1][1])!, Int(pair[0][1])! - 1, "kind \(kind): the body's stack was still held when finally ran")
                XCTAssertEqual(pair[1].last, "released", "kind \(kind): the body's captures were still alive when finally ran")
            }
        }
    }

    func testFinallyRunsExactlyOnceOnTheQueueEvenWhenAttachedLate() {
        let log = Log()
        let key = self.key
        let task = runAsync { log.add("body") }
        let late = expectation(description: "late finally")
        task.finally {
            log.add("late on \(DispatchQueue.getSpecific(key: key) ?? "?")")
            late.fulfill()
        }
        wait(for: [late], timeout: 3)
        XCTAssertEqual(log.all, ["body", "late on body queue"])
    }

    /// A `catch` attached after the body ended is queued; the caller may let the task go
    /// before it runs. It still runs, and the task is freed afterwards.
    func testLateCatchOnATaskNobodyKeepsStillRunsAndFreesIt() {
        let ran = expectation(description: "late catch")
        weak var weakTask: RJAsyncTask?
        do {
            let task = rj_async(on: queue) { throw TestError(code: 12) }
            while !task.isFinished { queue.sync {} }
            queue.suspend()  // the late handler cannot run before the task is let go
            task.catch { error in
                XCTAssertEqual(error as? TestError, TestError(code: 12))
                ran.fulfill()
            }
            weakTask = task
        }
        queue.resume()
        wait(for: [ran], timeout: 5)
        queue.sync {}
        XCTAssertNil(weakTask, "the task outlived its last handler")
    }

    func testSwiftConcurrencyCanAwaitATask() async throws {
        let log = Log()
        let task = rj_async(on: queue) {
            log.add("\(rj_await(later("x")).value as! String)")
        }
        try await task.wait()
        XCTAssertEqual(log.all, ["x"])
        XCTAssertTrue(task.isFinished)
        XCTAssertNil(task.error)
        try await task.wait()  // already finished: returns at once
    }

    /// A body that throws ends there; the error goes to `catch` (on the body's queue), to
    /// `error`, and out of `wait()`; `finally` runs once; a body that returns never calls `catch`.
    func testThrowingBodyDeliversItsErrorToCatchWaitAndFinallyOnce() async {
        let log = Log()
        let key = self.key
        let task = rj_async(on: queue) {
            log.add("before")
            let _: Int = try rj_awaitValue { (done: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                DispatchQueue.global().async { done(.failure(TestError(code: 11))) }
            }
            log.add("not reached")
        }
        .catch { error in log.add("catch \(error) on \(DispatchQueue.getSpecific(key: key) ?? "?")") }
        .finally { log.add("finally") }
        do {
            try await task.wait()
            XCTFail("wait() returned, but the body threw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(code: 11))
        }
        XCTAssertEqual(task.error as? TestError, TestError(code: 11))
        // Attached after the end: still runs, once, asynchronously.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            task.catch { _ in log.add("late catch") }.finally { done.resume() }
        }
        XCTAssertEqual(log.all, ["before", "catch TestError(code: 11) on body queue", "finally", "late catch"])

        let quiet = Log()
        let fine = rj_async(on: queue) { quiet.add("body") }.catch { _ in quiet.add("catch") }
        try? await fine.wait()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in fine.finally { done.resume() } }
        XCTAssertEqual(quiet.all, ["body"])
    }

    func testThousandsOfBodiesOnAConcurrentQueue() {
        let concurrent = DispatchQueue(label: "rj.async.concurrent", attributes: .concurrent)
        let count = aliveAtOnce(2_000)
        let group = DispatchGroup()
        let results = Log()
        let threads = Log()
        for i in 0..<count {
            group.enter()
            rj_async(on: concurrent) {
                threads.add("\(Thread.current.hashValue)")
                var sum = 0
                for step in 0..<3 {
                    sum += rj_await(later(step, after: 0.001)).value as! Int
                }
                threads.add("\(Thread.current.hashValue)")
                results.add("\(i):\(sum)")
            }.finally { group.leave() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(results.all.count, count)
        XCTAssertEqual(Set(results.all), Set((0..<count).map { "\($0):3" }))
    }

    func testManySuspendedBodiesAtOnce() {
        let count = aliveAtOnce(10_000)
        let gate = Promise<Int>.pending()
        let group = DispatchGroup()
        let sum = Log()
        let liveBefore = liveBodies
        for _ in 0..<count {
            group.enter()
            rj_async(on: .global()) {
                let r = rj_await(gate)
                if r.value as? Int != 1 { sum.add("bad") }
            }.finally { group.leave() }
        }
        // Instrumented builds start bodies several times slower: a longer budget there.
        let budget = RJRuntime.sanitizer == nil ? 20_000 : 60_000
        for _ in 0..<budget where liveBodies < liveBefore + count { usleep(1000) }
        XCTAssertEqual(liveBodies, liveBefore + count, "all bodies suspended at once")
        gate.fulfill(1)
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(sum.all, [])
        XCTAssertEqual(liveBodies, liveBefore)
    }

    func testTaskAndItsBodyAreFreedOnceFinished() {
        final class Weak: @unchecked Sendable { weak var task: RJAsyncTask? }
        let box = Weak()
        let liveBefore = liveBodies
        do {
            let task = runAsync {
                _ = rj_await(later(1))
                _ = rj_await { callback in callback(2, nil) }
            }
            box.task = task
        }
        queue.sync {}
        for _ in 0..<5_000 where box.task != nil { usleep(1000) }
        XCTAssertNil(box.task, "no cycle keeps a finished task")
        XCTAssertEqual(liveBodies, liveBefore)
    }
}

final class RJAsyncMainQueueTests: XCTestCase {
    func testDefaultQueueIsMainAndRunMainLoopDrivesIt() {
        XCTAssertTrue(Thread.isMainThread)
        let log = Log()
        let task = rj_async {
            log.add("body main \(Thread.isMainThread)")
            let r = rj_await(later("v"))
            log.add("resumed main \(Thread.isMainThread) \(r.value as? String ?? "\(String(describing: r.error))")")
        }.finally { log.add("finally main \(Thread.isMainThread)") }
        XCTAssertTrue(task.runMainLoop(timeout: 10))
        XCTAssertEqual(log.all, ["body main true", "resumed main true v", "finally main true"])
    }

    /// The seed's view-controller flow in Swift 6: a main-actor class whose `rj_async` body and
    /// `finally` use its state directly (this compiles only because both are main-actor
    /// closures), and stay on the main thread across every `rj_await`.
    @MainActor final class LoginController {
        var steps: [String] = []
        var busy = false
        func login(account: String) -> RJAsyncClosure { later(["uid": "80022", "account": account]) }
        func query(uid: String) -> RJAsyncClosure { later(["url": "https://example.com/\(uid)"], after: 0.01) }
        func loginTapped() -> RJMainActorTask {
            busy = true
            return rj_async {
                let json = rj_await(self.login(account: "112233")).value as! [String: String]
                self.steps.append("login \(json["uid"]!) main \(Thread.isMainThread)")
                let info = rj_await(self.query(uid: json["uid"]!)).value as! [String: String]
                self.steps.append("query \(info["url"]!) main \(Thread.isMainThread)")
            }
            .finally {
                self.busy = false
                self.steps.append("finally main \(Thread.isMainThread)")
            }
        }
    }

    func testMainActorBodyThatThrowsReachesAMainActorCatch() {
        // XCTest runs tests on the main thread.
        MainActor.assumeIsolated {
            let controller = LoginController()
            let task = rj_async {
                controller.steps.append("saving")
                let _: Int = try rj_awaitValue { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in
                    DispatchQueue.global().async { done(nil, TestError(code: 2)) }
                }
                controller.steps.append("saved")
            }
            .catch { error in controller.steps.append("alert \(error) main \(Thread.isMainThread)") }
            XCTAssertTrue(task.runMainLoop(timeout: 10))
            // The catch runs with the finally handlers, scheduled when the body ended.
            RunLoop.main.run(until: Date() + 0.05)
            XCTAssertEqual(controller.steps, ["saving", "alert TestError(code: 2) main true"])
        }
    }

    func testMainActorBodyAndFinallyUseMainActorState() {
        // XCTest runs tests on the main thread.
        MainActor.assumeIsolated {
            let controller = LoginController()
            let task = controller.loginTapped()
            XCTAssertTrue(controller.busy)
            XCTAssertTrue(task.runMainLoop(timeout: 10))
            XCTAssertFalse(controller.busy)
            XCTAssertEqual(controller.steps, [
                "login 80022 main true", "query https://example.com/80022 main true", "finally main true",
            ])
        }
    }

    /// With `on:`, the body is `@Sendable` and runs on that queue, and `finally` too.
    func testExplicitQueueKeepsTheSendableForm() {
        let log = Log()
        let queue = DispatchQueue(label: "explicit")
        let done = expectation(description: "finally")
        let task: RJAsyncTask = rj_async(on: queue) {
            log.add("body main \(Thread.isMainThread)")
        }.finally {
            log.add("finally main \(Thread.isMainThread)")
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertFalse(task is RJMainActorTask)
        XCTAssertEqual(log.all, ["body main false", "finally main false"])
    }
}

/// Keeps a callback for a test to call (or release) later, from any thread.
