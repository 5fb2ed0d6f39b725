import Dispatch
import Foundation
import XCTest

@testable import RJIterator

// The order of answers (issue 33). ES2018 settles an async generator's requests in the order
// they were made: a request's answer is given before any request queued behind it is served or
// answered. Here, in every path a request takes (served on its caller's thread, after an
// await, with a buffer, cancelled) and however the body ends its turn (yields, returns,
// throws), from every kind of requester (a Swift task, an `rj_async` body, another async
// generator's body, made from the body itself or from another thread meanwhile), in both
// stack modes:
// - each request gets the step of its place (the first the first, the queued one the next);
// - no requester is resumed inside an earlier request's call: a requester that resumes on the
//   thread that answers it (an async generator's body without `on:`) never runs on the thread
//   of a request served there before that request's call has returned. The rebuild before this
//   one answered the requests left waiting when the body ended on that thread, before the
//   call returned: 200 of 200 rounds failed here.
// What two requesters do once answered on two threads is not ordered (they run in parallel,
// as any two tasks resumed one after the other do); on one serial executor it is, by the
// executor (docs/async-generators.md, "The order of answers").

private struct Boom: Error, Equatable {}

/// How the body ends the turn that answers the first request.
private enum Turn: String, CaseIterable { case yields, returns, fails }
/// Where the first request is served: on its caller's thread (the body does not await before
/// the turn ends), or by the thread that completes an await of the body.
private enum Path: String, CaseIterable { case callersThread, afterAwait }
/// Who makes the queued request.
private enum Requester: String, CaseIterable { case swiftTask, rjAsyncBody, asyncGeneratorBody }
/// Where the queued request comes from: the body itself, synchronously, while it serves the
/// first one; or another thread, while the body waits for it to be queued.
private enum Origin: String, CaseIterable { case theBody, anotherThread }

private typealias Gen = AsyncGenerator<Int, Int, Int>

/// The generator, reachable from its own body without a reference cycle.
private final class Ref: @unchecked Sendable {
    weak var generator: Gen?
}

/// What one round saw: each requester's answer, and whether the queued one was resumed inside
/// the first one's call.
private final class Round: @unchecked Sendable {
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var first: String?
    private var second: String?
    private var firstThread: pthread_t?
    private var firstReturned = false
    private(set) var nested = false

    /// The first requester, on its thread, just before its call.
    func firstCalls() { lock.withLock { firstThread = pthread_self() } }

    /// The first requester, on the same thread, as soon as its call returned.
    func firstGot(_ answer: Result<GeneratorStep<Int, Int>, any Error>) {
        lock.withLock {
            firstReturned = true
            first = describe(answer)
        }
        finished.signal()
    }

    /// The queued requester, where it is resumed.
    func secondGot(_ answer: Result<GeneratorStep<Int, Int>, any Error>) {
        lock.withLock {
            if let firstThread, pthread_equal(firstThread, pthread_self()) != 0, !firstReturned { nested = true }
            second = describe(answer)
        }
        finished.signal()
    }

    func wait() -> (String?, String?) {
        for _ in 0..<2 { _ = finished.wait(timeout: .now() + 10) }
        return lock.withLock { (first, second) }
    }

    /// Waits for one more answer (the second may wait for something the test does next).
    func waitForOne() -> (String?, String?) {
        _ = finished.wait(timeout: .now() + 10)
        return lock.withLock { (first, second) }
    }
}

private func describe(_ answer: Result<GeneratorStep<Int, Int>, any Error>) -> String {
    switch answer {
    case .success(.yielded(let v)): return "yielded \(v)"
    case .success(.returned(let v)): return "returned \(v)"
    case .failure(let error): return "threw \(type(of: error))"
    }
}

/// `Result(catching:)` for an async call.
private func outcome(_ call: () async throws -> GeneratorStep<Int, Int>) async -> Result<GeneratorStep<Int, Int>, any Error> {
    do { return .success(try await call()) } catch { return .failure(error) }
}

/// Makes the queued request, as `requester` does, and returns once it is queued. (An `rj_async`
/// body starts on its queue, later: from the body too, the body waits for its request.)
private func makeQueuedRequest(to generator: Gen, by requester: Requester, from origin: Origin, round: Round) {
    let request: @Sendable () -> Void
    switch requester {
    case .swiftTask:
        request = {
            Task.immediate { round.secondGot(await outcome { try await generator.next(0) }) }
        }
    case .rjAsyncBody:
        let queue = DispatchQueue(label: "requester")
        request = {
            rj_async(on: queue) { round.secondGot(Result { try rj_awaitValue(nextOf: generator, sending: 0) }) }
        }
    case .asyncGeneratorBody:
        // No `on:`: its body resumes on the thread that answers it, so an answer given inside
        // the first request's call would run it there, nested.
        let consumer = AsyncGenerator<Int, Void, Void> { _ in
            round.secondGot(Result { try rj_awaitValue(nextOf: generator, sending: 0) })
        }
        request = { Task.immediate { _ = try? await consumer.next() } }
    }
    if origin == .theBody, requester != .rjAsyncBody {
        request()   // synchronously: the request is queued when this returns
    } else {
        DispatchQueue.global().async(execute: request)
    }
    while generator.storage.state.withLock({ $0.waitingCount }) < 1 { usleep(50) }
}

final class AsyncGeneratorAnswerOrderTests: XCTestCase {
    private var stackModes: [StackMode] {
        RJRuntime.sharedStacksAvailable ? [.dedicated, .shared] : [.dedicated]
    }

    /// One round: the first request from a detached task, the second queued while the body
    /// serves it.
    private func round(_ turn: Turn, _ path: Path, _ requester: Requester, _ origin: Origin,
                       _ mode: StackMode) -> (first: String?, second: String?, nested: Bool) {
        let round = Round()
        let ref = Ref()
        let generator = Gen(stackMode: mode) { y in
            if path == .afterAwait { _ = rj_await(answerLater(0, after: 0.0005)) }
            makeQueuedRequest(to: ref.generator!, by: requester, from: origin, round: round)
            switch turn {
            case .yields:
                _ = try y.yield(1)
                return 101
            case .returns:
                return 101
            case .fails:
                throw Boom()
            }
        }
        ref.generator = generator
        Task.detached {
            round.firstCalls()
            let answer = await outcome { try await generator.next(0) }
            round.firstGot(answer)
        }
        let (first, second) = round.wait()
        return (first, second, round.nested)
    }

    private func expected(_ turn: Turn) -> (first: String, second: String) {
        switch turn {
        case .yields: return ("yielded 1", "returned 101")    // served: the body goes on from its yield
        case .returns: return ("returned 101", "returned 101") // the kept outcome
        case .fails: return ("threw Boom", "threw Boom")        // the kept outcome
        }
    }

    // Every path x every turn x every requester x both origins x both stack modes: each
    // request gets the step of its place.
    func testEachRequestGetsTheStepOfItsPlace() {
        for mode in stackModes {
            for turn in Turn.allCases {
                for path in Path.allCases {
                    for requester in Requester.allCases {
                        for origin in Origin.allCases {
                            for _ in 0..<8 {
                                let seen = round(turn, path, requester, origin, mode)
                                let want = expected(turn)
                                let shape = "\(turn) \(path) \(requester) \(origin) \(mode)"
                                XCTAssertEqual(seen.first, want.first, shape)
                                XCTAssertEqual(seen.second, want.second, shape)
                            }
                        }
                    }
                }
            }
        }
    }

    // The shape: served on its caller's thread, the body makes a request through
    // another async generator (whose body resumes where it is answered) and ends its turn.
    // The queued request is answered after the first call returned, never inside it.
    func testARequesterIsNeverResumedInsideAnEarlierRequestsCall() {
        for mode in stackModes {
            for turn in Turn.allCases {
                var nested = 0
                for _ in 0..<200 {
                    let seen = round(turn, .callersThread, .asyncGeneratorBody, .theBody, mode)
                    XCTAssertEqual(seen.second, expected(turn).second, "\(turn) \(mode)")
                    if seen.nested { nested += 1 }
                }
                XCTAssertEqual(nested, 0, "\(turn) \(mode): the queued requester ran inside the first call \(nested) times in 200")
            }
        }
    }

    // Cancelled: the first requester's task is cancelled while the body awaits, with a request
    // queued behind it. The first read is withdrawn and throws CancellationError at once (the
    // test holds the generator: the body goes on); the queued one waits for the body, which
    // returns when its await completes: its own step, after the first.
    func testACancelledRequestIsAnsweredBeforeTheOneQueuedBehindIt() {
        for mode in stackModes {
            for requester in Requester.allCases {
                let round = Round()
                let awaiting = DispatchSemaphore(value: 0)
                let kept = LockedCallback()
                let generator = Gen(stackMode: mode) { _ in
                    let result = rj_await { done in kept.set(done); awaiting.signal() }
                    return result.error is CancellationError ? -1 : 55
                }
                let first = Task.detached {
                    round.firstCalls()
                    let answer = await outcome { try await generator.next(0) }
                    round.firstGot(answer)
                }
                awaiting.wait()
                makeQueuedRequest(to: generator, by: requester, from: .anotherThread, round: round)
                first.cancel()
                let (a, _) = round.waitForOne()
                XCTAssertEqual(a, "threw CancellationError", "\(requester) \(mode): withdrawn at once")
                XCTAssertFalse(generator.isCancelled, "\(requester) \(mode): the body goes on")
                kept.call(nil, nil)
                let (_, b) = round.waitForOne()
                XCTAssertEqual(b, "returned 55", "\(requester) \(mode)")
            }
        }
    }

    // With a buffer: the values produced go to the requests in the order they were made.
    func testWithABufferValuesGoToTheRequestsInTheirOrder() {
        for mode in stackModes {
            for requester in Requester.allCases {
                let round = Round()
                let go = DispatchSemaphore(value: 0)
                let generator = AsyncGenerator<Int, Void, Int>(bufferingUpTo: 2, stackMode: mode) { y in
                    _ = rj_await { done in DispatchQueue.global().async { go.wait(); done(nil, nil) } }
                    try y.yield(1)
                    try y.yield(2)
                    return 101
                }
                Task.detached {
                    round.firstCalls()
                    let answer = await outcome { try await generator.next() }
                    round.firstGot(answer)
                }
                // The first request is being served (the body waits for `go`); then the second is
                // made, and waits behind it.
                while generator.state != .running { usleep(50) }
                makeBufferedRequest(to: generator, by: requester, round: round)
                while generator.storage.state.withLock({ $0.waitingCount }) < 1 { usleep(50) }
                go.signal()
                let (a, b) = round.wait()
                XCTAssertEqual(a, "yielded 1", "\(requester) \(mode)")
                XCTAssertEqual(b, "yielded 2", "\(requester) \(mode)")
            }
        }
    }

    private func makeBufferedRequest(to generator: AsyncGenerator<Int, Void, Int>, by requester: Requester, round: Round) {
        switch requester {
        case .swiftTask:
            Task.detached { round.secondGot(await outcome { try await generator.next() }) }
        case .rjAsyncBody:
            rj_async(on: DispatchQueue(label: "requester")) {
                round.secondGot(Result { try rj_awaitValue(nextOf: generator) })
            }
        case .asyncGeneratorBody:
            let consumer = AsyncGenerator<Int, Void, Void> { _ in
                round.secondGot(Result { try rj_awaitValue(nextOf: generator) })
            }
            Task.detached { _ = try? await consumer.next() }
        }
    }
}
