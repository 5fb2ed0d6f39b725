import CRJContext
import Foundation
import RJLocks

/// What an ``AsyncGenerator`` is made of, apart from the object its users hold, so that the
/// body's pending work keeps this alive, never the generator (docs/swift-core.md, "Async
/// generators: public type, state machine, storage"). The state only under `state`'s lock; the
/// body runs on the thread the machine gave the turn to; the core's state word keeps the dump out.
@usableFromInline
final class AsyncGeneratorStorage<Element: Sendable, Input: Sendable, Return: Sendable>: _RJAwaitHost, @unchecked Sendable {
    @usableFromInline typealias Core = Generator<AsyncHandOut<Element>, AsyncResumeInput<Input>, Return>
    @usableFromInline typealias Step = GeneratorStep<Element, Return>
    @usableFromInline typealias Operation = GeneratorOperation<Input, Return>
    /// How the core is resumed: a request's operation, an await's news, or `CancellationError`.
    @usableFromInline typealias CoreOperation = GeneratorOperation<AsyncResumeInput<Input>, Return>
    /// How far one step of the core got: a value or an await handed out, or how the body ended.
    @usableFromInline typealias CoreStep = Result<GeneratorStep<AsyncHandOut<Element>, Return>, any Error>

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
        state = RJHintedMutex(AsyncGeneratorStateMachine(capacity: capacity, keepsWithdrawnSteps: Input.self == Void.self))
        resumeEntry = { storage in storage.resumeSpecialised() }
        switchOutEntry = { storage, generation in storage.switchOutSpecialised(generation) }
        // The host's queue: turns started in the background, and the resumes of cancellations.
        super.init(queue: queue ?? .global())
        adopt(core)
    }

    // MARK: The await host's part: the machine's await events, under the lock

    override func beginAwait(_ kind: AwaitKind, count: Int = 0, timeout: Double? = nil,
                             answeredBy stop: (@Sendable () -> Void)? = nil) -> UInt64? {
        beginAwaitOf(state, kind, count: count, timeout: timeout, answeredBy: stop)
    }

    override func registerAwait(_ kind: AwaitKind, count: Int, timeout: Double?, token: CallbackToken) -> AwaitState.Registration {
        registerAwaitOf(state, kind, count: count, timeout: timeout, token: token)
    }

    override func machineSetAwaitStop(_ stop: @escaping @Sendable () -> Void, for generation: UInt64) -> Bool {
        state.withLock { $0.setAwaitStop(stop, for: generation) }
    }

    override func machineCompleteAwait(_ result: RJResult, for generation: UInt64) -> AwaitState.Completion {
        state.withLock { $0.completeAwait(result, for: generation) }
    }

    override func takeEarly(for generation: UInt64) -> AwaitState.EarlyTake {
        state.withLock { $0.takeEarly(for: generation) }
    }

    override func takeResult() -> RJResult {
        state.withLock { $0.takeAwaitResult() }
    }

    override var awaitRecord: AwaitRecord { state.withLock { $0.awaits.record } }

    /// Every await of the body and every step of a relay ask this: a lock word that carries a hint
    /// says "not cancelled" (`notCancelledHint`; a cancelled generator is never in a fast state),
    /// and that costs no lock.
    override var isCancelled: Bool {
        if state.carriesHint { return false }
        return isCancelledForUsers
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
        guard let resumeQueue else { return drive(.next(.awaited)) }
        resumeQueue.async { self.drive(.next(.awaited)) }
    }

    /// The body's side of an `rj_await`: suspends its coroutine until the turn resumes it.
    @inlinable
    func switchOutSpecialised(_ generation: UInt64) -> RJResult {
        let current = rj_coro_current().unsafelyUnwrapped
        switch core.suspend(current, yielding: AsyncHandOut<Element>.awaiting(generation), resumedWith: AsyncResumeInput<Input>.self) {
        case .value(.awaited): return state.withLock { $0.takeResumedAwait() }
        case .value(.input):
            preconditionFailure("RJIterator: internal error: an async generator's await was resumed with a request's input")
        case .error(let error): return RJResult(value: nil, error: error, done: false)
        case .close: return RJResult(value: nil, error: CancellationError(), done: false)
        }
    }

    // MARK: Release and cancellation

    /// The last reference to the generator went: a body at a `yield` is closed here, on this
    /// thread; a body running for nobody is closed at its next `yield` (its pending await gives
    /// `CancellationError` at once). Reached from the generic deinit: nothing here needs the types.
    @usableFromInline
    func release() {
        switch state.withLock({ $0.released() }) {
        case .none: return
        case .closeNow: closeAsOnRelease()
        case .closeAtNextYield(let cancellation): interrupt(cancellation)
        }
    }

    /// Closes the body at its `yield` as a release does: its yields and awaits give
    /// `CancellationError` (its cleanups can neither wait nor hand a value out), so it runs to its
    /// end, unreported; a body that yields again after that ignored the close (reported, dropped).
    @usableFromInline
    func closeAsOnRelease() {
        // Out of the registry first, as a Generator's release is: no dump reads the core while
        // it is closed here (and none holds it, so the close can take it).
        core.record.unregister()
        core.closeOnRelease(cancelledByRelease: true)
        // Nobody waits on a released generator; reads left waiting behind an ignored
        // cancellation get the kept outcome (the error is the body's, not the reader's).
        let end = state.withLock { $0.turnEnded { Result<Step, any Error>.failure(CancellationError()) } }
        bodyEnded()
        for waiterAnswer in end.answers { answer(waiterAnswer) }
    }

    /// The body's last reader was cancelled and the body yielded again after its `yield` was
    /// refused: said on stderr, and the body closed as on release (`GeneratorExit` at its `yield`).
    @usableFromInline @inline(never)
    func closeIgnoringCancellation() {
        rj_report("RJIterator: the AsyncGenerator made at \(core.record.siteText) ignored its cancellation: its last reader was "
                  + "cancelled, and its body caught the CancellationError of a yield and yielded again; the reader has its "
                  + "CancellationError, and the body is closed as on release. Let CancellationError go on from a yield")
        closeAsOnRelease()
    }

    /// Stops the pending await's work and resumes a waiting body with `CancellationError`, on the
    /// queue (never in a task's cancellation handler or a release).
    @usableFromInline
    func interrupt(_ cancellation: AwaitState.Cancellation) {
        if cancellation.stop == nil && !cancellation.resume { return }
        let box = UncheckedBox(value: cancellation)
        queue.async {
            box.value.stop?()
            if box.value.resume { self.resumeAfterAwait() }
        }
    }

    /// The task or await host waiting for read `id` was cancelled (`lastReader`: it holds the only
    /// reference): the machine withdraws the read, or cancels the body.
    @inlinable
    func readerCancelled(_ id: UInt64, lastReader: Bool) {
        let action = state.withLock { $0.readerCancelled(id, lastReader: lastReader) }
        if let waiterAnswer = action.answer { answer(waiterAnswer) }
        if let interrupt = action.interrupt {
            // The read now waits for the body's end, its grace at most.
            self.interrupt(interrupt)
            answerAfterGrace(id)
        }
    }

    /// How long the last reader of a cancelled body waits for the body's cleanups at most: then it
    /// is answered `CancellationError` whatever the body does, which goes on to its end with
    /// nobody to read it (docs/async-generators.md, "Several readers").
    @inlinable static var closingGrace: Double { 0.1 }

    /// Answers closing read `id` once its grace is over, if the body has not ended by then.
    @usableFromInline
    func answerAfterGrace(_ id: UInt64) {
        queue.asyncAfter(deadline: .now() + Self.closingGrace) {
            if let waiterAnswer = self.state.withLock({ $0.closerOverdue(id) }) { self.answer(waiterAnswer) }
        }
    }

    // MARK: Answers

    /// Hands a waiter its answer (the machine has let go of it): resumes the task waiting on it,
    /// or completes the await of the body waiting for it (which takes the kept answer).
    /// `atHand`: the value the body just yielded, or how it just ended.
    @inlinable
    func answer(_ waiterAnswer: AsyncWaiterAnswer, atHand: Result<Step, any Error>? = nil) {
        switch waiterAnswer.waiter {
        case .task(let raw):
            let answer = typed(waiterAnswer.answer, of: waiterAnswer.operation, atHand: atHand)
            unsafeBitCast(raw, to: UnsafeContinuation<Step, any Error>.self).resume(with: answer)
        case .body(let host, let generation):
            host.completeAwait(RJResult(), for: generation)
        case .none, .nobody:
            preconditionFailure("RJIterator: internal error: an async generator handed an answer to no waiter")
        }
    }

    /// The typed answer of `answer`, for a request of `operation` (erased in the machine).
    @inlinable
    func typed(_ answer: AsyncAnswer, of operation: Any, atHand: Result<Step, any Error>? = nil) -> Result<Step, any Error> {
        switch answer {
        case .atHand:
            guard let atHand else { preconditionFailure("RJIterator: internal error: an async generator's answer at hand is missing") }
            return atHand
        case .yielded(let value): return .success(.yielded(value as! Element))
        case .result(let result): return result as! Result<Step, any Error>
        case .outcome(let ending): return outcomeAnswer(operation as! Operation, ending)
        case .cancellation: return .failure(CancellationError())
        }
    }

    /// A request on a generator whose body has ended, answered from what the body kept. After its
    /// last reader's cancellation, a later read (through a weak reference) sees a normal end:
    /// `.returned(())` if `Return` is `Void`, ``GeneratorError/closed`` otherwise.
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

    /// Where the body is (`AsyncGenerator.state`).
    @usableFromInline
    var generatorState: GeneratorState { state.withLock { $0.generatorState } }

    /// Whether the body's awaits are cancelled (`AsyncGenerator.isCancelled`).
    @usableFromInline
    var isCancelledForUsers: Bool { state.withLock { $0.awaits.cancelled } }

    /// Whether the body ended cancelled by its last reader.
    @usableFromInline
    var endedByCancellation: Bool {
        state.withLock { machine in
            if case .ended(.byCancellation) = machine.body { return true }
            return false
        }
    }
}

extension GeneratorOperation {
    /// A read: `next` (or what starts or resumes a body as `next` does), which a value produced
    /// ahead answers and a reader's cancellation withdraws; `return`, `throw` and `close` are commands.
    @inlinable
    var isNext: Bool {
        switch self {
        case .next, .send, .start, .delegate: return true
        case .throwing, .returning, .close: return false
        }
    }
}

/// `beginAwait` of an async generator's state machine, under its lock. A free function, not
/// generic: a generic class's method would copy the state through its value witnesses.
@usableFromInline
func beginAwaitOf(_ state: borrowing RJHintedMutex<AsyncGeneratorStateMachine>, _ kind: AwaitKind, count: Int, timeout: Double?,
                  answeredBy stop: (@Sendable () -> Void)?) -> UInt64? {
    state.withLock { $0.beginAwait(kind, count: count, timeout: timeout, answeredBy: stop) }
}

/// `registerAwait` of an async generator's state machine, under its lock (as `beginAwaitOf`).
@usableFromInline
func registerAwaitOf(_ state: borrowing RJHintedMutex<AsyncGeneratorStateMachine>, _ kind: AwaitKind, count: Int, timeout: Double?,
                     token: CallbackToken) -> AwaitState.Registration {
    state.withLock { $0.registerAwait(kind, count: count, timeout: timeout, token: token) }
}
