import XCTest

@testable import RJIterator

// The state machine's table (Generator/GeneratorStateMachine.swift, docs/swift-core.md), cell by
// cell: for each state and operation, the action and the state word afterwards. The other tests
// check the same through the public API; these pin the table itself.

/// An action as text: what the tests compare.
private func describe<I, R>(_ action: GeneratorAction<I, R>) -> String {
    switch action {
    case .start: return "start"
    case .resume(.value(let input)): return "resume(value \(input))"
    case .resume(.error(let error)): return "resume(error \(error))"
    case .resume(.close): return "resume(close)"
    case .complete(.returned(let value)): return "complete(returned \(value))"
    case .complete(.threw(let error)): return "complete(threw \(error))"
    case .complete(.closed): return "complete(closed)"
    case .reportOutcome: return "reportOutcome"
    case .answer(let value): return "answer(\(value))"
    case .fail(let error): return "fail(\(error))"
    }
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

final class GeneratorStateMachineTests: XCTestCase {
    /// A generator whose body never runs: the machine's host (its fields are the state).
    private func host() -> Generator<Int, Int, Int> {
        Generator { _ in 0 }
    }

    /// The action `operation` gets from a machine in `state`, and the state word after.
    private func cell<I, R>(_ state: GeneratorState, _ operation: GeneratorOperation<I, R>) -> (String, GeneratorState) {
        let g = host()
        let machine = g.machine
        if state != .created {
            // Past the first acquire, as a machine that left `created` is.
            _ = machine.acquire()
            g.stateWord.store(state, ordering: .releasing)
        }
        let action = machine.begin(operation)
        return (describe(action), machine.current(.relaxed))
    }

    func testAFreshGeneratorStartsOnNextStartOrDelegateRefusesSendAndCompletesOnReturnThrowOrClose() {
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.next(5)).0, "start")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.next(5)).1, .running)
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.start).0, "start")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.delegate).0, "start")
        // send: no yield to receive the input yet; the generator stays as it was.
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.send(5)).0, "fail(\(GeneratorError.notStarted))")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.send(5)).1, .created)
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.throwing(Boom())).0, "complete(threw boom)")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.returning(7)).0, "complete(returned 7)")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.close).0, "complete(closed)")
        XCTAssertEqual(cell(.created, GeneratorOperation<Int, Int>.close).1, .running, "held until completed")
    }

    func testASuspendedGeneratorResumesWithTheInputTheErrorOrACloseAndRefusesStart() {
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.next(5)).0, "resume(value 5)")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.next(5)).1, .running)
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.send(6)).0, "resume(value 6)")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.start).0, "fail(\(GeneratorError.alreadyStarted))")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.start).1, .suspended, "given back")
        // A delegation can resume a started generator only with a Void input.
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Void, Int>.delegate).0, "resume(value ())")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.delegate).0, "fail(\(GeneratorError.delegateAlreadyStarted))")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.delegate).1, .suspended, "given back")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.throwing(Boom())).0, "resume(error boom)")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.returning(7)).0, "resume(close)")
        XCTAssertEqual(cell(.suspended, GeneratorOperation<Int, Int>.close).0, "resume(close)")
    }

    func testRunningRefusesEveryOperationAndStaysRunning() {
        let refused = "fail(\(GeneratorError.alreadyRunning))"
        let operations: [GeneratorOperation<Int, Int>] = [.next(1), .send(1), .start, .delegate, .throwing(Boom()), .returning(1), .close]
        for operation in operations {
            XCTAssertEqual(cell(.running, operation).0, refused)
            XCTAssertEqual(cell(.running, operation).1, .running)
        }
    }

    func testACompletedGeneratorReportsItsOutcomeAndAnswersReturnAndThrowUnchanged() {
        for operation in [GeneratorOperation<Int, Int>.next(1), .send(1), .start, .delegate, .close] {
            XCTAssertEqual(cell(.completed, operation).0, "reportOutcome")
            XCTAssertEqual(cell(.completed, operation).1, .completed)
        }
        // ES6: return(v) and throw(e) of a completed generator answer without changing it.
        XCTAssertEqual(cell(.completed, GeneratorOperation<Int, Int>.returning(7)).0, "answer(7)")
        XCTAssertEqual(cell(.completed, GeneratorOperation<Int, Int>.throwing(Boom())).0, "fail(boom)")
    }

    func testReturnCarriesItsValueToTheExitSignalAndCloseCarriesNone() {
        let g = host()
        let machine = g.machine
        _ = machine.acquire()
        machine.giveBack(Acquisition.suspended)
        _ = machine.begin(GeneratorOperation<Int, String>.returning("v"))
        let exit = g.takeExit()
        XCTAssertEqual(exit.pendingReturn?.value as? String, "v")
        XCTAssertNil(g.takeExit().pendingReturn, "taken once")
        machine.giveBack(Acquisition.suspended)
        _ = machine.begin(GeneratorOperation<Int, String>.returning("w"))
        machine.giveBack(Acquisition.suspended)
        _ = machine.begin(GeneratorOperation<Int, String>.close)
        XCTAssertNil(g.takeExit().pendingReturn, "a close drops a return that did not reach the body")
    }

    // A plain close throws the one boxed signal of the process, known by identity; a return's
    // signal carries its value in a box of its own, and is not taken for it.
    func testAPlainCloseThrowsTheOneBoxedSignal() {
        let g = host()
        let machine = g.machine
        _ = machine.acquire()
        machine.giveBack(Acquisition.suspended)
        _ = machine.begin(GeneratorOperation<Int, String>.close)
        let first = g.takeExitError()
        XCTAssertTrue(GeneratorExit.isBoxedClose(first))
        XCTAssertTrue(GeneratorExit.isBoxedClose(g.takeExitError()), "the same box every time")
        XCTAssertTrue(first is GeneratorExit)
        machine.giveBack(Acquisition.suspended)
        _ = machine.begin(GeneratorOperation<Int, String>.returning("v"))
        let returning = g.takeExitError()
        XCTAssertFalse(GeneratorExit.isBoxedClose(returning))
        XCTAssertEqual((returning as? GeneratorExit)?.pendingReturn?.value as? String, "v")
        // A signal a body caught and threw again is boxed anew: not the one box, still a close.
        let rethrown: any Error = first as! GeneratorExit
        XCTAssertFalse(GeneratorExit.isBoxedClose(rethrown))
        XCTAssertFalse(GeneratorExit.isBoxedClose(TestError(code: 0)))
    }

    func testTransitionsAfterTheSwitch() {
        let g = host()
        let machine = g.machine
        XCTAssertEqual(describe(machine.begin(GeneratorOperation<Int, Int>.next(0))), "start")
        machine.bodyYielded(heldByDelegator: true)
        XCTAssertEqual(machine.current(.relaxed), .running, "a delegate stays with its owner")
        machine.bodyYielded()
        XCTAssertEqual(machine.state, .suspended)
        _ = machine.begin(GeneratorOperation<Int, Int>.next(1))
        machine.completed(with: ErasedCompletion(Completion<Int>.returned(42)), kind: .returnedInline)
        XCTAssertEqual(machine.state, .completed)
        XCTAssertEqual(machine.keptReturn(as: Int.self), 42)
        XCTAssertFalse(machine.endedByClose)
    }

    func testOwnedOperationsTakeNothing() {
        let g = host()
        let machine = g.machine
        _ = machine.begin(GeneratorOperation<Int, Int>.delegate)
        machine.bodyYielded(heldByDelegator: true)
        XCTAssertEqual(describe(machine.beginForDelegator(GeneratorOperation<Int, Int>.next(3))), "resume(value 3)")
        XCTAssertEqual(machine.current(.relaxed), .running)
        machine.giveBackFromDelegator(hasCoroutine: true)
        XCTAssertEqual(machine.current(.relaxed), .suspended, "an early end of the delegation gives it back")
        _ = machine.begin(GeneratorOperation<Int, Int>.next(4))
        machine.completed(with: ErasedCompletion(Completion<Int>.closed), kind: .closed)
        XCTAssertEqual(describe(machine.beginForDelegator(GeneratorOperation<Int, Int>.delegate)), "reportOutcome")
        XCTAssertTrue(machine.endedByClose)
    }

    func testCloseOnReleaseOnlyFromSuspendedAndDumpHold() {
        let g = host()
        let machine = g.machine
        XCTAssertFalse(machine.beginCloseOnRelease(), "nothing to close in a fresh generator")
        _ = machine.begin(GeneratorOperation<Int, Int>.next(0))
        machine.bodyYielded()
        let (held, _) = machine.holdForDump()
        XCTAssertTrue(held)
        XCTAssertFalse(machine.holdForDump().held, "held once")
        machine.letGoAfterDump()
        XCTAssertTrue(machine.beginCloseOnRelease())
        XCTAssertTrue(machine.closingOnRelease)
        XCTAssertEqual(machine.current(.relaxed), .running)
    }
}
