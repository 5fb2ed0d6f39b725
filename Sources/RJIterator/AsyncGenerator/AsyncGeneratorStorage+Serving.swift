import CRJContext
import CRJShims
import Foundation
import RJLocks

// Serving an async generator's requests: the state machine's decisions carried out. A turn runs
// on the thread the machine gave it to: the caller's, when it found the generator idle
// (`serveCaller`, the fast path); else the previous turn's, an await's completer's, or the queue's (`drive`).

extension AsyncGeneratorStorage {
    /// What `attempt` (a request's synchronous part) achieved.
    @usableFromInline
    enum Attempt {
        case answered(Result<Step, any Error>)
        /// Served until the body awaited: the caller waits for the answer of this request.
        case pending(UInt64)
        /// Something else is in progress: the caller waits as a request.
        case later
        /// A read from a task that is cancelled: nothing was done.
        case cancelled
    }

    /// A request from Swift concurrency, its synchronous part: served here when nothing else is in progress.
    @inlinable @inline(__always)
    func attempt(_ operation: Operation) -> Attempt {
        // `Task.isCancelled`, without its retain and release of the task (CRJShims). A command
        // (`return`, `throw`) acts whoever sends it.
        if operation.isNext, rj_current_task_is_cancelled() { return .cancelled }
        return serveCaller(operation)
    }

    /// `attempt` out of the async function that calls it, so a request's fast path is small enough
    /// to be inlined into its caller (a `for try await` loop): no executor switch, no async frame.
    @inlinable @inline(never)
    func attemptOutOfLine(_ operation: Operation) -> Attempt {
        attempt(operation)
    }

    /// `serveCaller` out of line, without the task's cancellation check (a loop makes it every 32).
    @inlinable @inline(never)
    func serveCallerOutOfLine(_ operation: Operation) -> Attempt {
        serveCaller(operation)
    }

    /// The caller runs the body for its request on its own thread, if nothing is in progress.
    @inlinable @inline(__always)
    func serveCaller(_ operation: Operation) -> Attempt {
        typealias Machine = AsyncGeneratorStateMachine
        // Idle, as the lock word says: the turn is this caller's, with one compare-exchange.
        if state.transition(from: Machine.idleHint, to: Machine.callerTurnHint) {
            let step = Result { try serve(operation) }
            if case .success(.yielded(.value(let value))) = step, state.transition(from: Machine.callerTurnHint, to: Machine.idleHint) {
                return .answered(.success(.yielded(value)))
            }
            return callerTurnEnded(operation, step)
        }
        return serveCallerSlowly(operation)
    }

    /// The rest of `serveCaller` when the generator was not simply idle.
    @inlinable @inline(never)
    func serveCallerSlowly(_ operation: Operation) -> Attempt {
        switch state.withLock({ $0.callerArrives(isNext: operation.isNext) }) {
        case .serve:
            break
        case .take(let value, let produce):
            if produce { goOn(.produce) }
            return .answered(.success(.yielded(value as! Element)))
        case .outcome(let ending):
            return .answered(outcomeAnswer(operation, ending))
        case .wait:
            return .later
        }
        return callerTurnEnded(operation, Result { try serve(operation) })
    }

    /// The caller's turn ended other than at a `yield` with nobody behind: someone came, a buffer,
    /// the body ended, or it awaits.
    @inlinable @inline(never)
    func callerTurnEnded(_ operation: Operation, _ step: CoreStep) -> Attempt {
        switch step {
        case .success(.yielded(.value(let value))):
            // The caller's answer is its return value: what comes after it goes to the queue.
            goOn(state.withLock { $0.callerTurnYielded() })
            return .answered(.success(.yielded(value)))
        case .success(.yielded(.awaiting(let generation))):
            // The body waits for work: from here the request is answered from elsewhere.
            let (suspension, id) = state.withLock { $0.turnAwaits(generation, callerNowWaitingAs: (operation, operation.isNext)) }
            // Completed meanwhile: resumed as a completion resumes it (on `on:`, if given).
            if case .resumeNow = suspension { resumeSpecialised() }
            return .pending(id)
        case .success(.returned(let value)):
            return callerTurnEnded(.success(.returned(value)))
        case .failure(let error):
            return callerTurnEnded(.failure(error))
        }
    }

    /// The caller's turn ended with the body: its result is the caller's answer; the requests
    /// left waiting get the kept outcome after it, on the queue.
    @inlinable
    func callerTurnEnded(_ result: Result<Step, any Error>) -> Attempt {
        let end = state.withLock { $0.turnEnded { result } }
        bodyEnded()
        if !end.answers.isEmpty {
            let box = UncheckedBox(value: end.answers)
            queue.async { for waiterAnswer in box.value { self.answer(waiterAnswer) } }
        }
        return .answered(result)
    }

    /// The turn the machine gave the generator's queue after a caller's answer.
    @inlinable
    func goOn(_ next: AsyncGeneratorStateMachine.Next) {
        guard let operation = coreOperation(for: next) else { return }
        let box = UncheckedBox(value: operation)
        queue.async { self.drive(box.value) }
    }

    /// How the body is resumed for what the turn does next; nil for `stop`.
    @inlinable
    func coreOperation(for next: AsyncGeneratorStateMachine.Next) -> CoreOperation? {
        switch next {
        case .stop: return nil
        // Only a generator with a buffer produces ahead, and its `Input` is `Void`.
        case .produce: return .next(.input(() as! Input))
        case .serve(let operation): return Self.coreOperation(operation as! Operation)
        }
    }

    /// One step of the core for `operation`.
    @inlinable @inline(__always)
    func serve(_ operation: Operation) throws -> GeneratorStep<AsyncHandOut<Element>, Return> {
        // The hot path, a `next`, folds to its one case; the others are rare.
        if case .next(let input) = operation { return try core.perform(.next(.input(input))) }
        return try core.performOutOfLine(Self.coreOperation(operation))
    }

    /// `operation` as the core takes it: inputs wrapped (the core is also resumed with awaits'
    /// news); a delegation's first step resumes a suspended `Void`-input body with `()` (ES2018).
    @inlinable @inline(__always)
    static func coreOperation(_ operation: Operation) -> CoreOperation {
        switch operation {
        case .next(let input): return .next(.input(input))
        case .send(let input): return .send(.input(input))
        case .start: return .start
        case .delegate:
            if let input = () as? Input { return .next(.input(input)) }
            return .delegate
        case .throwing(let error): return .throwing(error)
        case .returning(let value): return .returning(value)
        case .close: return .close
        }
    }

    /// Runs the turn the machine gave this thread, step after step, until the body awaits, the
    /// generator is idle, or the body has ended; each answer goes out before what queued behind it.
    @inlinable
    func drive(_ first: CoreOperation) {
        var operation = first
        while true {
            switch Result(catching: { try core.performOutOfLine(operation) }) {
            case .success(.yielded(.awaiting(let generation))):
                switch state.withLock({ $0.turnAwaits(generation).suspension }) {
                case .wait: return
                case .resumeNow:
                    // Completed meanwhile: on `on:`, if given, as a completion resumes it.
                    if resumeQueue != nil { return resumeSpecialised() }
                    operation = .next(.awaited)
                }
            case .success(.yielded(.value(let value))):
                switch state.withLock({ $0.turnYielded { value } }) {
                case .answer(let waiterAnswer, let next):
                    if let waiterAnswer { answer(waiterAnswer, atHand: .success(.yielded(value))) }
                    guard let goOn = coreOperation(for: next) else { return }
                    operation = goOn
                case .refuse:
                    operation = .throwing(CancellationError())
                case .ignoredCancellation(let answers):
                    for waiterAnswer in answers { answer(waiterAnswer) }
                    return closeIgnoringCancellation()
                case .closeForRelease:
                    return closeAsOnRelease()
                }
            case .success(.returned(let value)):
                return turnEnded(.success(.returned(value)))
            case .failure(let error):
                return turnEnded(.failure(error))
            }
        }
    }

    /// The body ended during a storage turn: the answers go out in order.
    @inlinable
    func turnEnded(_ result: Result<Step, any Error>) {
        let end = state.withLock { $0.turnEnded { result } }
        bodyEnded()
        for waiterAnswer in end.answers { answer(waiterAnswer, atHand: result) }
    }

    // MARK: Requests that wait, from Swift concurrency

    /// The rest of a request that `attempt` could not answer at once. `lastReader`: its caller
    /// holds the only reference to the generator (a `for try await` loop's iterator that owns it).
    @inlinable @inline(never)
    nonisolated(nonsending) func answerLater(_ operation: Operation, _ attempt: Attempt, lastReader: Bool = false) async throws -> Step {
        switch attempt {
        case .answered(let result):
            return try result.get()
        case .pending(let id):
            return try await wait(for: id, of: operation, lastReader: lastReader)
        case .later:
            switch state.withLock({ $0.requestArrives(operation, isNext: operation.isNext) }) {
            case .serve(let id):
                drive(Self.coreOperation(operation))
                return try await wait(for: id, of: operation, lastReader: lastReader)
            case .answered(let answer, let produce):
                if produce { goOn(.produce) }
                return try typed(answer, of: operation).get()
            case .queued(let id):
                return try await wait(for: id, of: operation, lastReader: lastReader)
            }
        case .cancelled:
            // A read from a cancelled task is withdrawn before it is made, unless its caller is the
            // last reader: then nobody can read the body any more, and it is cancelled first.
            guard lastReader else { throw CancellationError() }
            switch state.withLock({ $0.lastReaderLeaves(operation) }) {
            case .closeHere(let id):
                // On the queue, not this thread: the read waits for the cleanups, its grace at most.
                queue.async { self.drive(.throwing(CancellationError())) }
                answerAfterGrace(id)
                return try await wait(for: id, of: operation, lastReader: true)
            case .waits(let id, let interrupt):
                self.interrupt(interrupt)
                answerAfterGrace(id)
                return try await wait(for: id, of: operation, lastReader: true)
            case .answered:
                throw CancellationError()
            }
        }
    }

    /// Waits for the answer of request `id`; cancelling the task withdraws a read (or, for the
    /// last reader, cancels the body); a command waits for its answer whatever happens.
    @inlinable
    nonisolated(nonsending) func wait(for id: UInt64, of operation: Operation, lastReader: Bool) async throws -> Step {
        guard operation.isNext else { return try await waitOnContinuation(for: id) }
        return try await withTaskCancellationHandler {
            try await waitOnContinuation(for: id)
        } onCancel: {
            self.readerCancelled(id, lastReader: lastReader)
        }
    }

    @inlinable
    nonisolated(nonsending) func waitOnContinuation(for id: UInt64) async throws -> Step {
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Step, any Error>) in
            let raw = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
            if let kept = state.withLock({ $0.waiterArrives(id, .task(raw)) }) {
                continuation.resume(with: typed(kept.answer, of: kept.operation))
            }
        }
    }
}
