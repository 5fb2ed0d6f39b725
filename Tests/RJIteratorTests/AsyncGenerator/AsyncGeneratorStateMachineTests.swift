import XCTest

@testable import RJIterator

// The async generator's request state (AsyncGenerator/AsyncGeneratorStateMachine.swift): the
// phase, the queue, and the answer order, transition by transition.

final class AsyncGeneratorStateMachineTests: XCTestCase {
    /// An async generator whose body never runs: the machine's host (its fields are the state).
    private let host = AsyncGenerator<Int, Void, Void> { _ in }

    private func request(_ n: Int) -> AsyncRequest {
        AsyncRequest(GeneratorOperation<Void, Void>.next(()))
    }

    func testTheFastPathTakesAndGivesBackTheIdlePhase() {
        let machine = host.machine
        XCTAssertTrue(machine.beginServingIfIdle())
        XCTAssertFalse(machine.beginServingIfIdle(), "one request at a time")
        XCTAssertEqual(machine.currentPhase, .busy)
        XCTAssertTrue(machine.endServingIfAlone())
        XCTAssertEqual(machine.currentPhase, .idle)
    }

    func testRequestsQueueBehindTheOneServedAndAreServedInOrder() {
        let machine = host.machine
        let (a, b, c) = (request(1), request(2), request(3))
        guard case .serveHere = machine.submit(a) else { return XCTFail("an idle generator serves the first request") }
        guard case .queued = machine.submit(b), case .queued = machine.submit(c) else { return XCTFail("queued") }
        XCTAssertEqual(machine.currentPhase, .busyWithWaiters)
        XCTAssertFalse(machine.endServingIfAlone(), "requests wait")
        machine.startServing(a)
        guard case .serveNext(let first) = machine.settle(bodyEnded: false) else { return XCTFail("b is next") }
        XCTAssertTrue(first === b)
        XCTAssertTrue(machine.servedRequest === b)
        XCTAssertEqual(machine.currentPhase, .busyWithWaiters, "c still waits")
        guard case .serveNext(let second) = machine.settle(bodyEnded: false) else { return XCTFail("c is next") }
        XCTAssertTrue(second === c)
        XCTAssertEqual(machine.currentPhase, .busy, "nobody waits behind c")
        guard case .idle = machine.settle(bodyEnded: false) else { return XCTFail("nothing left") }
        XCTAssertEqual(machine.currentPhase, .idle)
        XCTAssertNil(machine.servedRequest)
    }

    // The answer order when the body ends: the request served first, then every one left, in
    // the order they came (consumers of a buffer after the queued requests).
    func testWhenTheBodyEndsTheLeftRequestsAreAnsweredInOrder() {
        let machine = host.machine
        let (a, b, c, d) = (request(1), request(2), request(3), request(4))
        _ = machine.submit(a)
        _ = machine.submit(b)
        _ = machine.submit(c)
        _ = machine.take(for: d)
        guard case .ended(let left) = machine.settle(bodyEnded: true) else { return XCTFail("ended") }
        XCTAssertEqual(left.count, 3)
        XCTAssertTrue(left[0] === b && left[1] === c && left[2] === d)
        XCTAssertEqual(machine.currentPhase, .completed)
        guard case .answerFromOutcome = machine.submit(request(5)) else { return XCTFail("a completed generator answers at once") }
    }

    func testCancelFindsTheRequestWhereItIs() {
        let machine = host.machine
        let (a, b, c) = (request(1), request(2), request(3))
        _ = machine.submit(a)
        _ = machine.submit(b)
        machine.awaiting(17, serving: a)
        guard case .dropped = machine.cancel(b) else { return XCTFail("a waiting request is dropped") }
        guard case .served(let generation) = machine.cancel(a) else { return XCTFail("the served one is found") }
        XCTAssertEqual(generation, 17)
        guard case .elsewhere = machine.cancel(c) else { return XCTFail("one the machine does not know") }
        guard case .idle = machine.settle(bodyEnded: false) else { return XCTFail("b was taken off the queue") }
    }

    func testABufferDeliversToWaitingConsumersFirstThenKeeps() {
        let machine = host.machine
        let consumer = request(1)
        guard case .waits = machine.take(for: consumer) else { return XCTFail("nothing produced yet") }
        XCTAssertTrue(machine.deliver(.success(.yielded(1))) === consumer)
        XCTAssertNil(machine.deliver(.success(.yielded(2))), "nobody waits: buffered")
        XCTAssertTrue(machine.hasRoomAhead(capacity: 2))
        XCTAssertNil(machine.deliver(.success(.yielded(3))))
        XCTAssertFalse(machine.hasRoomAhead(capacity: 2))
        guard case .ready(.success(.yielded(2))) = machine.take(for: request(2)) else { return XCTFail("oldest first") }
        machine.dropBuffered()
        XCTAssertTrue(machine.hasRoomAhead(capacity: 2))
        _ = machine.settle(bodyEnded: true)
        guard case .ended = machine.take(for: request(3)) else { return XCTFail("ended, nothing left") }
    }
}
