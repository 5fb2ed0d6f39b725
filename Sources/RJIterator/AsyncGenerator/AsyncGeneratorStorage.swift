import CRJContext
import Foundation
import RJLocks

/// What an ``AsyncGenerator`` is made of, apart from the object its users hold, so that the
/// body's pending work keeps this alive, never the generator (docs/swift-core.md, "Async
/// generators: public type, state machine, storage"). The state only under `state`'s lock; the
/// body runs on the thread the machine gave the turn to; the core's state word keeps the dump out.
@usableFromInline
final class AsyncGeneratorStorage<Element: Sendable, Input: Sendable, Return: Sendable>: _RJAwaitHost, @unchecked Sendable {
    @usableFromInline typealias Core = Generator<AsyncEvent<Element>, AsyncResume<Input>, Return>
    @usableFromInline typealias Step = GeneratorStep<Element, Return>
    @usableFromInline typealias Operation = GeneratorOperation<Input, Return>

    /// The body's coroutine. Resumed only by the thread the state machine gave the turn to.
    @usableFromInline let core: Core
    @usableFromInline let state: RJHintedMutex<AsyncGeneratorStateMachine>
    /// Where the body goes on after an await; nil: on the thread that completed it.
    @usableFromInline let resumeQueue: DispatchQueue?
    /// The two paths reached from untyped code (an await's completion, an `rj_await`'s
    /// suspension), made by the initialiser where the types are known: a generic class's method
    /// reached through the class's table would look its types' metadata up on every call.
    @usableFromInline let resumeEntry: (AsyncGeneratorStorage) -> Void
    @usableFromInline let switchOutEntry: (AsyncGeneratorStorage, UInt64) -> RJResult

    @inlinable
    init(capacity: Int, queue: DispatchQueue?, stackMode: StackMode?, file: StaticString, line: UInt,
         _ body: @escaping @Sendable (AsyncYielder<Element, Input>) throws -> Return) {
        resumeQueue = queue
        core = Core(checkedStackSize: 0, stackMode: stackMode, kind: .asyncGenerator, file: file, line: line) { y in
            try body(AsyncYielder(host: y.host, id: y.id))
        }
        state = RJHintedMutex(AsyncGeneratorStateMachine(capacity: capacity))
        resumeEntry = { storage in storage.resumeSpecialised() }
        switchOutEntry = { storage, generation in storage.switchOutSpecialised(generation) }
        // The host's queue: turns started in the background, and the resumes of cancellations.
        super.init(queue: queue ?? .global())
        adopt(core)
    }

    // MARK: The await host's part

    override func withAwaits(_ body: (inout AwaitState) -> Void) {
        withAwaitsOf(state, body)
    }

    override func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil)
        -> (generation: UInt64, spare: CallbackToken?)?
    {
        beginAwaitOf(state, kind, count: count, timeout: timeout)
    }

    override func takeEarly(for generation: UInt64, keeping spare: CallbackToken?, completedByBody: Bool) -> AwaitState.EarlyTake {
        takeEarlyOf(state, for: generation, keeping: spare, completedByBody: completedByBody)
    }

    /// A relay asks this before each step: a body running its caller's turn, as the lock word says,
    /// is not cancelled (a cancelled generator is never in a fast state), and that costs no lock.
    override var isCancelled: Bool {
        if state.carries(AsyncGeneratorStateMachine.callerTurnHint) { return false }
        return super.isCancelled
    }

    override func resumeAfterAwait() {
        resumeEntry(self)
    }

    override func switchOut(awaiting generation: UInt64) -> RJResult {
        switchOutEntry(self, generation)
    }

    /// Resumes the body, waiting in an await that has its result: on `resumeQueue`, or right here.
    @inlinable
    func resumeSpecialised() {
        guard let resumeQueue else { return drive(.awaited) }
        resumeQueue.async { self.drive(.awaited) }
    }

    /// The body's side of an `rj_await`: suspends its coroutine until the turn resumes it.
    @inlinable
    func switchOutSpecialised(_ generation: UInt64) -> RJResult {
        let current = rj_coro_current().unsafelyUnwrapped
        switch core.suspend(current, yielding: AsyncEvent<Element>.awaiting(generation), resumedWith: AsyncResume<Input>.self) {
        case .value(.awaited): return state.withLock { $0.awaits.takeResumed() }
        case .value(.input):
            preconditionFailure("RJIterator: internal error: an async generator's await was resumed with a request's input")
        case .error(let error): return RJResult(value: nil, error: error, done: false)
        case .close: return RJResult(value: nil, error: CancellationError(), done: false)
        }
    }

    // MARK: Release and cancellation

    /// The last reference to the generator went: a body at a `yield` is closed here, on this
    /// thread; a body producing ahead is closed at its next `yield` (its pending await gives
    /// `CancellationError` at once). Reached from the generic deinit: nothing here needs the types.
    @usableFromInline
    func release() {
        switch state.withLock({ $0.released() }) {
        case .none: return
        case .closeNow: closeForRelease()
        case .closeAtNextYield(let cancellation): carryOut(cancellation)
        }
    }

    /// Closes the body at its `yield`, released: its yields and awaits give `CancellationError` (its
    /// cleanups can neither wait nor hand a value out), so it runs to its end, unreported.
    @usableFromInline
    func closeForRelease() {
        // Out of the registry first, as a Generator's release is: no dump reads the core while
        // it is closed here (and none holds it, so the close can take it).
        core.record.unregister()
        core.closeOnRelease(cancelledByRelease: true)
        let end = state.withLock { $0.turnEnded() }
        // Requests that wait hold the generator, so none should be left; any gets the end.
        for request in end.left { answer(request, outcomeAnswer(operation(of: request), end.ending)) }
        withExtendedLifetime(end.spare) {}
    }

    /// A cancellation's effect: stops the pending await's work and resumes a waiting body with
    /// `CancellationError`, on the queue (not in a task's cancellation handler or a release).
    @usableFromInline
    func carryOut(_ cancellation: AwaitState.Cancellation) {
        if cancellation.stop == nil && !cancellation.resume { return }
        let box = UncheckedBox(value: cancellation)
        queue.async {
            box.value.stop?()
            if box.value.resume { self.resumeAfterAwait() }
        }
    }

    /// The caller of `request` was cancelled: the generator ends at its place.
    @inlinable
    func cancel(_ request: AsyncRequest) {
        switch state.withLock({ $0.cancel(request) }) {
        case .none:
            return
        case .cancelledTurn(let cancellation):
            carryOut(cancellation)
        case .withdrawn(let stop):
            answer(request, .failure(CancellationError()))
            if let stop { carryOut(stop) }
        }
    }

    /// A reader whose task is cancelled already asks: its place ends the generator.
    @inlinable
    func cancellationArrives() {
        carryOut(state.withLock { $0.cancellationArrives() })
    }

    @inlinable
    func carryOut(_ start: AsyncGeneratorStateMachine.CancellationStart) {
        switch start {
        case .closeHere: drive(.cancellation)
        case .queued(let stop): if let stop { carryOut(stop) }
        case .ended: break
        }
    }

    // MARK: Answers

    /// Gives `request` its answer (decided by the machine): resumes the task waiting on it, or
    /// keeps it for the body waiting in an await and wakes that await.
    @inlinable
    func answer(_ request: AsyncRequest, _ result: Result<Step, any Error>) {
        let (waiter, cancelled) = state.withLock { _ in request.takeAnswer(result) }
        switch waiter {
        case .none:
            break
        case .continuation(let raw):
            let given: Result<Step, any Error> = cancelled ? .failure(CancellationError()) : result
            unsafeBitCast(raw, to: UnsafeContinuation<Step, any Error>.self).resume(with: given)
        case .callback(let notify):
            notify()
        }
    }

    /// The answer kept in `request`, if it has one (for a waiter that came after it).
    @inlinable
    func keptAnswer(of request: AsyncRequest) -> Result<Step, any Error>? {
        let (kept, cancelled) = state.withLock { _ in (request.answer, request.cancelled) }
        guard let kept else { return nil }
        return cancelled ? .failure(CancellationError()) : (kept as! Result<Step, any Error>)
    }

    /// The answer of `request` once its caller, cancelled before it could wait, has cancelled it:
    /// the kept answer, or `nil` when the cancellation came before an answer was decided. An
    /// answer decided but not handed over yet (the thread that decided it is between its two
    /// holds of the lock, `answer(_:_:)` to come) is waited for: it is a value nobody else gets.
    @inlinable
    func answerAfterCancelling(_ request: AsyncRequest) -> Result<Step, any Error>? {
        while true {
            let (kept, answered, cancelled) = state.withLock { _ in (request.answer, request.answered, request.cancelled) }
            if let kept { return cancelled ? .failure(CancellationError()) : (kept as! Result<Step, any Error>) }
            if cancelled || !answered { return nil }
            sched_yield()
        }
    }

    /// A request on a generator whose body has ended, answered from what the body kept. After a
    /// reader's cancellation the others see a normal end: `.returned(())` if `Return` is `Void`,
    /// ``GeneratorError/closed`` otherwise (docs/async-generators.md, "Several readers").
    @inlinable
    func outcomeAnswer(_ operation: Operation, _ ending: AsyncGeneratorStateMachine.Ending) -> Result<Step, any Error> {
        Result {
            do {
                return .returned(try core.completedOutcome(for: Self.coreOperation(operation)))
            } catch is CancellationError where ending == .byCancellation && operation.isNext {
                if let nothing = () as? Return { return .returned(nothing) }
                throw GeneratorError.closed
            }
        }
    }

    /// The operation `request` carries (typed again: requests hold it erased).
    @inlinable
    func operation(of request: AsyncRequest) -> Operation {
        request.operation as! Operation
    }

    /// Where the body is (`AsyncGenerator.state`).
    @usableFromInline
    var generatorState: GeneratorState { state.withLock { $0.generatorState } }

    /// Whether the body's awaits are cancelled (`AsyncGenerator.isCancelled`).
    @usableFromInline
    var isCancelledForUsers: Bool { state.withLock { $0.awaits.cancelled } }

    /// Whether a reader's cancellation ended the body.
    @usableFromInline
    var endedByCancellation: Bool {
        state.withLock { machine in
            if case .ended(.byCancellation) = machine.body { return true }
            return false
        }
    }
}

extension GeneratorOperation {
    /// A `next` (or what starts or resumes a body as `next` does), which a value produced ahead answers.
    @inlinable
    var isNext: Bool {
        switch self {
        case .next, .send, .start, .delegate: return true
        case .throwing, .returning, .close: return false
        }
    }
}

/// The await state of an async generator's state machine, under its lock. A free function, not
/// generic: a generic class's method would copy the state through its value witnesses.
@usableFromInline
func withAwaitsOf(_ state: borrowing RJHintedMutex<AsyncGeneratorStateMachine>, _ body: (inout AwaitState) -> Void) {
    state.withLock { body(&$0.awaits) }
}

/// `AwaitState.begin` of an async generator's state machine, under its lock (as `withAwaitsOf`).
@usableFromInline
func beginAwaitOf(_ state: borrowing RJHintedMutex<AsyncGeneratorStateMachine>, _ kind: AwaitKind, count: Int, timeout: Double?)
    -> (generation: UInt64, spare: CallbackToken?)?
{
    var spare: CallbackToken?
    let generation = state.withLock { $0.awaits.begin(kind, count: count, timeout: timeout, spare: &spare) }
    return generation == 0 ? nil : (generation, spare)
}

/// `AwaitState.takeEarly` of an async generator's state machine, under its lock.
@usableFromInline
func takeEarlyOf(_ state: borrowing RJHintedMutex<AsyncGeneratorStateMachine>, for generation: UInt64,
                 keeping spare: CallbackToken?, completedByBody: Bool) -> AwaitState.EarlyTake {
    state.withLock { $0.awaits.takeEarly(for: generation, keeping: spare, completedByBody: completedByBody) }
}
