import Foundation
import XCTest

@testable import RJIterator

// Issue 52, 2: two ways a cancelled reader was held. A body that swallows the cancellation of
// its `yield` kept its cancelled reader waiting until it ended on its own; and a reader whose
// answer was decided but not yet handed over spun (`sched_yield`) until it was, which on one
// serial queue with the generator could wait forever. The machine now decides an answer and
// hands its waiter out in one hold of the lock: there is no such moment left to wait for.

/// Who the hooks of a round cancel, and in which window.
private final class Script: @unchecked Sendable {
    enum Window: String, CaseIterable {
        /// Before the reader's first read.
        case beforeItAsks
        /// In the await's work, started by the body serving the reader (on the serial queue).
        case whileTheBodyAwaits
        /// On the work's thread, just before it completes the await.
        case asTheAwaitCompletes
        /// On the work's thread, just after it completed the await (the body's resume is queued).
        case rightAfterTheAwaitCompleted
        /// In the body, resumed on the serial queue, just before its `yield`.
        case fromTheBodyBeforeItYields
        /// From another thread, after a random delay.
        case atRandom
    }

    private let lock = NSLock()
    let window: Window
    private var reader: RJAsyncTask?
    private var armed = true

    init(_ window: Window) { self.window = window }

    func setReader(_ task: RJAsyncTask) { lock.withLock { reader = task } }

    /// The round reached `point`: cancels the reader, once, if this is the window.
    func reached(_ point: Window) {
        guard point == window else { return }
        // (Not before the test has set the reader: the reader may start before `rj_async` returns.)
        let task: RJAsyncTask? = lock.withLock {
            guard armed, let reader else { return nil }
            armed = false
            return reader
        }
        task?.cancel()
    }
}

final class AsyncGeneratorCancellationWindowsTests: XCTestCase {
    private var stackModes: [StackMode] {
        RJRuntime.sharedStacksAvailable ? [.dedicated, .shared] : [.dedicated]
    }

    // A generator made with `on: q`, read by an `rj_async(on: q)` body, which is cancelled in
    // each window the hooks can force (and at random); then a second reader on the same queue.
    // Every round ends (the spin could hang the queue), the cancelled reader gets its values
    // then CancellationError, and the second reader goes on from where it stopped: the step
    // produced for the withdrawn read is the second reader's first value, nothing lost.
    func testAReaderAndItsGeneratorOnOneSerialQueueCancelledInEveryWindow() {
        for mode in stackModes {
            for window in Script.Window.allCases {
                for round in 0..<20 {
                    let shape = "\(mode) \(window.rawValue) round \(round)"
                    let queue = DispatchQueue(label: "one serial queue")
                    let script = Script(window)
                    let gen = AsyncGenerator<Int, Void, Void>(on: queue, stackMode: mode) { y in
                        var i = 0
                        while true {
                            let value = i
                            let r = rj_await { done in
                                script.reached(.whileTheBodyAwaits)
                                DispatchQueue.global().async {
                                    script.reached(.asTheAwaitCompletes)
                                    done(value, nil)
                                    script.reached(.rightAfterTheAwaitCompleted)
                                }
                            }
                            if let error = r.error { throw error }
                            script.reached(.fromTheBodyBeforeItYields)
                            try y.yield(i)
                            i += 1
                        }
                    }
                    let first = Log()
                    let done = DispatchSemaphore(value: 0)
                    let reader = rj_async(on: queue) {
                        do {
                            while case .yielded(let v) = try rj_awaitValue(nextOf: gen) {
                                first.add("\(v)")
                                if v == 3 { script.reached(.atRandom) }
                            }
                        } catch {
                            first.add("\(type(of: error))")
                        }
                    }.finally { done.signal() }
                    script.setReader(reader)
                    if window == .beforeItAsks { script.reached(.beforeItAsks) }
                    if window == .atRandom {
                        DispatchQueue.global().asyncAfter(deadline: .now() + Double(round % 5) * 0.0003) { script.reached(.atRandom) }
                    }
                    XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the cancelled reader ended: \(shape)")
                    var got = first.all
                    // A task cancelled before its body started never runs it.
                    if got.last == "CancellationError" { got.removeLast() } else { XCTAssertEqual(got, [], shape) }
                    XCTAssertEqual(got, (0..<got.count).map { "\($0)" }, shape)

                    let second = Log()
                    let secondDone = DispatchSemaphore(value: 0)
                    rj_async(on: queue) {
                        for _ in 0..<3 { second.add("\(rj_await(nextOf: gen).value as? Int ?? -1)") }
                    }.finally { secondDone.signal() }
                    XCTAssertEqual(secondDone.wait(timeout: .now() + 10), .success, "the second reader ended: \(shape)")
                    XCTAssertEqual(second.all, (got.count..<got.count + 3).map { "\($0)" }, "goes on where the first stopped: \(shape)")
                    XCTAssertFalse(gen.isCancelled, shape)
                }
            }
        }
    }

    // A body that ignores its last reader's cancellation without yielding (a retry loop around
    // an await, each giving CancellationError at once): the reader is answered after the closing
    // grace (0.1 s), whatever the body does; the body goes on to its end with nobody to read it.
    func testTheLastReaderOfABodyThatIgnoresItsCancellationIsAnsweredAfterItsGrace() async throws {
        for mode in stackModes {
            let log = Log()
            @Sendable func make() -> AsyncGenerator<Int, Void, Void> {
                AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in
                    defer { log.add("body ended") }
                    try y.yield(0)
                    let start = Date()
                    while Date().timeIntervalSince(start) < 0.4 {
                        _ = rj_await { done in DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done(nil, nil) } }
                    }
                }
            }
            let cancelledAt = LockedBox<Date?>(nil)
            let reader = Task {
                for try await _ in make() {
                    try await Task.sleep(for: .milliseconds(30))
                    cancelledAt.value = Date()
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            await XCTAssertThrowsAsync(try await reader.value) { XCTAssertTrue($0 is CancellationError, "\($0)") }
            let waited = Date().timeIntervalSince(cancelledAt.value!)
            XCTAssertLessThan(waited, 0.2, "\(mode): answered within 200 ms")
            XCTAssertGreaterThanOrEqual(waited, 0.09, "\(mode): after the grace (the body's cleanups could have run)")
            XCTAssertEqual(log.all, [], "\(mode): the body goes on, for nobody")
            try await eventually { log.all == ["body ended"] }
            XCTAssertEqual(log.all, ["body ended"], "\(mode)")
        }
    }

    // A body that swallows the cancellation of its yields (a careless retry loop), read by a
    // task that cancels itself at its 10th value, the generator held elsewhere too: only the
    // read is withdrawn, answered at once; the body is never cancelled.
    func testAReaderOfABodyThatSwallowsCancellationIsAnsweredAtOnce() async throws {
        for mode in stackModes {
            let gen = AsyncGenerator<Int, Void, Void>(stackMode: mode) { y in
                var i = 0
                while true {
                    do { try y.yield(i) } catch is CancellationError {}
                    i += 1
                }
            }
            let cancelledAt = LockedBox<Date?>(nil)
            let read = LockedBox(0)
            let reader = Task {
                var n = 0
                for try await _ in gen {
                    n += 1
                    read.value = n
                    if n == 10 {
                        cancelledAt.value = Date()
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                }
            }
            await XCTAssertThrowsAsync(try await reader.value) { XCTAssertTrue($0 is CancellationError) }
            let waited = Date().timeIntervalSince(cancelledAt.value!)
            XCTAssertLessThan(waited, 0.2, "\(mode): answered within 200 ms")
            XCTAssertFalse(gen.isCancelled)
            XCTAssertLessThanOrEqual(read.value, 10 + 32, "\(mode): the loop saw its cancellation within 32 values")
            await XCTAssertStep(try await gen.next(), "yielded(\(read.value))", "\(mode): the body goes on for the others")
        }
    }
}
