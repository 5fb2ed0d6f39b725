import Foundation
import XCTest

@testable import RJIterator

// Issue 52's program: one AsyncGenerator of 1,000 jobs (an await every tenth) read by four
// workers; worker 0 cancels its own task after its 50th job. Issue 39's rule lost 920 jobs a
// round (the cancelled worker ended the generator for everyone, and the others could not tell
// it from the end); swift-async-algorithms' AsyncChannel hands out all 1,000. Here too: every
// job goes out once, to a worker that was not cancelled or to worker 0 before it stopped, and
// worker 0 stops within 32 jobs of its cancellation (a loop answered without suspending checks
// its task every 32 elements).

/// Who got which job.
private final class Ledger: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [[Int]] = [[], [], [], []]
    private var cancelledAfter = -1
    private var endings: [String] = ["", "", "", ""]
    func record(_ worker: Int, _ job: Int) { lock.withLock { jobs[worker].append(job) } }
    func cancelled(after count: Int) { lock.withLock { cancelledAfter = count } }
    func end(_ worker: Int, _ how: String) { lock.withLock { endings[worker] = how } }
    var snapshot: ([[Int]], Int, [String]) { lock.withLock { (jobs, cancelledAfter, endings) } }
}

private func jobs(_ mode: StackMode) -> AsyncGenerator<Int, Void, Void> {
    AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in
        for j in 0..<1000 {
            if j % 10 == 0 {
                _ = try rj_awaitValue { (done: @escaping @Sendable (Int?, (any Error)?) -> Void) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.001) { done(j, nil) }
                }
            }
            try y.yield(j)
        }
    }
}

final class AsyncGeneratorWorkQueueTests: XCTestCase {
    private var stackModes: [StackMode] {
        RJRuntime.sharedStacksAvailable ? [.dedicated, .shared] : [.dedicated]
    }

    private func check(_ ledger: Ledger, _ shape: String, file: StaticString = #filePath, line: UInt = #line) {
        let (jobs, cancelledAfter, endings) = ledger.snapshot
        let all = jobs.flatMap { $0 }
        XCTAssertEqual(all.count, 1000, "every job handed out: \(shape)", file: file, line: line)
        XCTAssertEqual(Set(all).count, all.count, "none twice: \(shape)", file: file, line: line)
        XCTAssertEqual(cancelledAfter, 50, shape, file: file, line: line)
        XCTAssertLessThanOrEqual(jobs[0].count - cancelledAfter, 32, "worker 0 stops within 32 jobs: \(shape)", file: file, line: line)
        XCTAssertEqual(endings, ["CancellationError", "end", "end", "end"], shape, file: file, line: line)
    }

    // Four Swift tasks with `for try await`, as the issue wrote it.
    func testAWorkerCancelledAfter50JobsLosesNoJobOfTheOthers() async {
        for mode in stackModes {
            for round in 0..<3 {
                let ledger = Ledger()
                let queue = jobs(mode)
                await withTaskGroup(of: Void.self) { group in
                    for w in 0..<4 {
                        group.addTask {
                            var n = 0
                            do {
                                for try await j in queue {
                                    ledger.record(w, j)
                                    n += 1
                                    if w == 0 && n == 50 {
                                        ledger.cancelled(after: n)
                                        withUnsafeCurrentTask { $0?.cancel() }
                                    }
                                    if w != 0 { try? await Task.sleep(for: .microseconds(200)) }   // the work
                                }
                                ledger.end(w, "end")
                            } catch {
                                ledger.end(w, "\(type(of: error))")
                            }
                        }
                    }
                }
                check(ledger, "\(mode) round \(round)")
            }
        }
    }

    // The same with `rj_async` workers (`rj_awaitValue(nextOf:)`): worker 0 cancels its
    // RJAsyncTask; its next read throws CancellationError at once.
    func testAnRJAsyncWorkerCancelledAfter50JobsLosesNoJobOfTheOthers() {
        final class TaskBox: @unchecked Sendable {
            private let lock = NSLock()
            private var task: RJAsyncTask?
            var value: RJAsyncTask? {
                get { lock.withLock { task } }
                set { lock.withLock { task = newValue } }
            }
        }
        for mode in stackModes {
            for round in 0..<3 {
                let ledger = Ledger()
                let queue = jobs(mode)
                let finished = DispatchSemaphore(value: 0)
                let first = TaskBox()
                let started = DispatchSemaphore(value: 0)
                for w in 0..<4 {
                    let task = rj_async(on: DispatchQueue(label: "worker \(w)")) {
                        if w == 0 { started.wait() }
                        var n = 0
                        do {
                            while case .yielded(let j) = try rj_awaitValue(nextOf: queue) {
                                ledger.record(w, j)
                                n += 1
                                if w == 0 && n == 50 {
                                    ledger.cancelled(after: n)
                                    first.value?.cancel()
                                }
                                if w != 0 { _ = rj_await(answerLater(0, after: 0.0002)) }   // the work
                            }
                            ledger.end(w, "end")
                        } catch {
                            ledger.end(w, "\(type(of: error))")
                        }
                    }.finally { finished.signal() }
                    if w == 0 {
                        first.value = task
                        started.signal()
                    }
                }
                for _ in 0..<4 { XCTAssertEqual(finished.wait(timeout: .now() + 30), .success) }
                check(ledger, "\(mode) round \(round)")
                let (jobs, _, _) = ledger.snapshot
                XCTAssertEqual(jobs[0].count, 50, "\(mode) round \(round): an rj_async worker's next read is refused at once")
            }
        }
    }
}
